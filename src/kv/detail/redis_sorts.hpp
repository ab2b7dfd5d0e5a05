// duet::kv::detail — the two sorts behind Redis's geo replies, step for step,
// so that equal keys (points at the same distance) come out in Redis's order.
//
// Contract
// - glibc_qsort(): what Redis's qsort() call does on Debian's glibc (2.36):
//   a top-down merge sort, halves of n/2 and n - n/2, merged taking the
//   left element when cmp(left, right) <= 0 — stable.
// - partial_qsort(): Redis's pqsort.c, Bentley & McIlroy's quicksort that
//   only recurses into parts overlapping [first, last]: afterwards the
//   elements at those positions are the ones a full sort would put there,
//   equal keys in the order this algorithm leaves them (it is not stable).
// - cmp(a, b) returns an int, negative / 0 / positive, as a C comparator;
//   both call it on the same pairs in the same order as the C code.
//
//   detail::partial_qsort(std::span(points), by_distance, 0, count - 1);
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace duet::kv::detail {

namespace sort_detail {

template <class T, class Cmp>
void merge_sort(T* b, std::size_t n, T* tmp, Cmp& cmp) {
  if (n <= 1) return;
  std::size_t n1 = n / 2;
  std::size_t n2 = n - n1;
  T* b1 = b;
  T* b2 = b + n1;
  merge_sort(b1, n1, tmp, cmp);
  merge_sort(b2, n2, tmp, cmp);
  T* out = tmp;
  while (n1 > 0 && n2 > 0) {
    if (cmp(*b1, *b2) <= 0) {
      *out++ = std::move(*b1++);
      --n1;
    } else {
      *out++ = std::move(*b2++);
      --n2;
    }
  }
  while (n1-- > 0) *out++ = std::move(*b1++);
  // What is left of the right half is already in place.
  std::move(tmp, out, b);
}

template <class T, class Cmp>
T* median_of_three(T* a, T* b, T* c, Cmp& cmp) {
  return cmp(*a, *b) < 0 ? (cmp(*b, *c) < 0 ? b : (cmp(*a, *c) < 0 ? c : a))
                         : (cmp(*b, *c) > 0 ? b : (cmp(*a, *c) < 0 ? a : c));
}

template <class T>
void swap_runs(T* a, T* b, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) std::swap(a[i], b[i]);
}

// Whether [lo, hi] meets the wanted positions [first, last].
template <class T>
bool overlaps(const T* lo, const T* hi, const T* first, const T* last) {
  return !((first < lo && last < lo) || (first > hi && last > hi));
}

template <class T, class Cmp>
void pqsort(T* a, std::size_t n, Cmp& cmp, const T* first, const T* last) {
  for (;;) {
    if (n < 7) {  // insertion sort
      for (T* pm = a + 1; pm < a + n; ++pm) {
        for (T* pl = pm; pl > a && cmp(*(pl - 1), *pl) > 0; --pl) std::swap(*pl, *(pl - 1));
      }
      return;
    }
    T* pm = a + n / 2;
    if (n > 7) {
      T* pl = a;
      T* pn = a + (n - 1);
      if (n > 40) {
        const std::size_t d = n / 8;
        pl = median_of_three(pl, pl + d, pl + 2 * d, cmp);
        pm = median_of_three(pm - d, pm, pm + d, cmp);
        pn = median_of_three(pn - 2 * d, pn - d, pn, cmp);
      }
      pm = median_of_three(pl, pm, pn, cmp);
    }
    std::swap(*a, *pm);
    // Partition around *a; keys equal to it gather at both ends, then move to the middle.
    T* pa = a + 1;
    T* pb = a + 1;
    T* pc = a + (n - 1);
    T* pd = a + (n - 1);
    for (;;) {
      int r = 0;
      while (pb <= pc && (r = cmp(*pb, *a)) <= 0) {
        if (r == 0) std::swap(*pa++, *pb);
        ++pb;
      }
      while (pb <= pc && (r = cmp(*pc, *a)) >= 0) {
        if (r == 0) std::swap(*pc, *pd--);
        --pc;
      }
      if (pb > pc) break;
      std::swap(*pb++, *pc--);
    }
    T* pn = a + n;
    std::ptrdiff_t r = std::min(pa - a, pb - pa);
    swap_runs(a, pb - r, r);
    r = std::min(pd - pc, pn - pd - 1);
    swap_runs(pb, pn - r, r);
    if ((r = pb - pa) > 1 && overlaps<T>(a, a + r - 1, first, last)) {
      pqsort(a, static_cast<std::size_t>(r), cmp, first, last);
    }
    if ((r = pd - pc) <= 1) return;
    a = pn - r;  // the right part: iterate rather than recurse
    n = static_cast<std::size_t>(r);
    if (!overlaps<T>(a, a + r - 1, first, last)) return;
  }
}

}  // namespace sort_detail

template <class T, class Cmp>
void glibc_qsort(std::span<T> items, Cmp cmp) {
  if (items.size() <= 1) return;
  std::vector<T> tmp(items.size());
  sort_detail::merge_sort(items.data(), items.size(), tmp.data(), cmp);
}

template <class T, class Cmp>
void partial_qsort(std::span<T> items, Cmp cmp, std::size_t first, std::size_t last) {
  if (items.empty()) return;
  sort_detail::pqsort(items.data(), items.size(), cmp, items.data() + first, items.data() + last);
}

}  // namespace duet::kv::detail
