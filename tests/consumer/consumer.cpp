// A program outside the duet tree: proves the installed headers, duet.pc and
// the subproject dependency are enough to build against duet.
#include <duet/duet.hpp>

duet::Task<int> answer() { co_return 42; }

int main() { return duet::sync_wait(answer()) == 42 ? 0 : 1; }
