#pragma once
// The second core of the priority queue: one helper thread for the whole process that
// runs the other half of a split piece of work (half of a sort, half of a merge) while
// the calling thread does the first half. Work is handed over once per piece (a sort of
// the insertion heap, a merge of thousands of elements), never per element.
//
//   pq::run_pair([&] { sort(first half); }, [&] { sort(second half); });
//
// If the helper is busy with another caller (two queues used by two threads), or the
// machine has one core, or the program runs with --threads 1 (flow::threads()), both halves
// run on the caller.
// An exception thrown by either half is rethrown by run_pair after both have finished.
#include <cstddef>
#include <utility>

namespace flow::containers::pq {

struct task {
  void (*fn)(void*) = nullptr;
  void* ctx = nullptr;
  void operator()() const { fn(ctx); }
};

/// Runs a on the calling thread and b on the helper thread (or both here); returns when
/// both are done.
void run_pair_tasks(task a, task b);

/// Whether a second thread may be used (flow::threads() > 1).
bool parallel_available() noexcept;

template <class A, class B> void run_pair(A&& a, B&& b) {
  task ta{[](void* p) { (*static_cast<std::remove_reference_t<A>*>(p))(); }, &a};
  task tb{[](void* p) { (*static_cast<std::remove_reference_t<B>*>(p))(); }, &b};
  run_pair_tasks(ta, tb);
}

} // namespace flow::containers::pq
