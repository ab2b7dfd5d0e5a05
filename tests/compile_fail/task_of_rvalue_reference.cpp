// A Task of an rvalue reference: the value would dangle once the frame is gone.
// expect: Task<T&&> is not supported
#include <utility>

#include <duet/task/task.hpp>

int stored = 1;

duet::Task<int&&> wrong() { co_return std::move(stored); }
