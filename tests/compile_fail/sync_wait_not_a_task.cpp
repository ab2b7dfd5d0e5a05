// sync_wait of something that is not a Task.
// expect: sync_wait takes a duet::Task<T>
#include <duet/task/sync_wait.hpp>

int main() { return duet::sync_wait(42); }
