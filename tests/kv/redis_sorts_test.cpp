// detail::glibc_qsort and detail::partial_qsort against the orders Redis's
// own code gives: the expected ids below are the output of Redis 7.0.15's
// pqsort.c and Debian glibc 2.36's qsort() on the same input, compiled as C.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kv/detail/redis_sorts.hpp"

namespace {

struct Item {
  double key;
  int id;
};

int ascending(const Item& a, const Item& b) { return a.key > b.key ? 1 : a.key == b.key ? 0 : -1; }
int descending(const Item& a, const Item& b) { return -ascending(a, b); }

// 60 keys in 0..8 from C's classic LCG: many ties.
std::vector<Item> tied_items(std::size_t n = 60) {
  std::vector<Item> items;
  std::uint32_t s = 28;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    items.push_back({static_cast<double>((s >> 16) % 9), static_cast<int>(i)});
  }
  return items;
}

std::vector<int> ids(const std::vector<Item>& items, std::size_t n) {
  std::vector<int> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(items[i].id);
  return out;
}

}  // namespace

TEST_CASE("partial_qsort leaves ties in the order Redis's pqsort leaves them", "[redis_sorts]") {
  auto items = tied_items();
  duet::kv::detail::partial_qsort(std::span<Item>(items), ascending, 0, 9);
  CHECK(ids(items, 10) == std::vector<int>{19, 41, 5, 55, 12, 13, 37, 44, 58, 1});

  items = tied_items();
  duet::kv::detail::partial_qsort(std::span<Item>(items), descending, 0, 24);
  CHECK(ids(items, 25) == std::vector<int>{8, 22, 11, 47, 15, 57, 33, 27, 16, 14, 2, 50, 7, 48, 28, 20, 29, 25, 17,
                                           49, 54, 31, 51, 30, 26});

  items = tied_items(12);  // small: insertion sort, and the n > 7 median
  duet::kv::detail::partial_qsort(std::span<Item>(items), ascending, 0, 2);
  CHECK(ids(items, 3) == std::vector<int>{5, 3, 1});
}

TEST_CASE("glibc_qsort is glibc's stable merge sort", "[redis_sorts]") {
  auto items = tied_items();
  duet::kv::detail::glibc_qsort(std::span<Item>(items), ascending);
  CHECK(ids(items, 60) == std::vector<int>{5,  12, 13, 19, 37, 41, 44, 55, 1,  3,  21, 36, 40, 45, 58, 59, 18, 24, 39, 0,
                                           6,  52, 53, 4,  10, 32, 34, 42, 56, 23, 38, 43, 9,  17, 26, 30, 31, 35, 46, 49,
                                           51, 54, 2,  7,  14, 20, 25, 28, 29, 48, 50, 8,  11, 15, 16, 22, 27, 33, 47, 57});
}

TEST_CASE("partial_qsort puts the smallest keys first for any range", "[redis_sorts]") {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::vector<Item> items;
    const std::size_t n = 1 + rng() % 300;
    for (std::size_t i = 0; i < n; ++i) items.push_back({static_cast<double>(rng() % 50), static_cast<int>(i)});
    std::vector<Item> sorted = items;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
    const std::size_t k = 1 + rng() % n;
    duet::kv::detail::partial_qsort(std::span<Item>(items), ascending, 0, k - 1);
    for (std::size_t i = 0; i < k; ++i) REQUIRE(items[i].key == sorted[i].key);
  }
}
