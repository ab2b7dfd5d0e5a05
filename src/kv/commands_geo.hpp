// What the two geo command files share (commands_geo.cpp: GEOADD GEOPOS
// GEODIST GEOHASH and the table; commands_geo_search.cpp: GEOSEARCH,
// GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and the _RO forms).
//
// Contract
// - A geo index is a sorted set whose scores are 52-bit geohashes
//   (kv/types/geohash.hpp); any sorted set is accepted, its scores decoded
//   as Redis decodes them.
// - parse_lonlat() is extractLongLatOrReply: two floats as getDoubleFromObject
//   reads them, then Redis's limits ("ERR invalid longitude,latitude pair
//   %f,%f"); parse_unit() is extractUnitOrReply (m km ft mi, any case: the
//   factor to metres). Both reply the error and return false.
// - reply_coordinate() writes a longitude or latitude as Redis's
//   addReplyHumanLongDouble: "%.17Lf" with trailing zeros cut, a bulk string
//   in RESP2 and a RESP3 double.
// - georadius_store_key_at() finds GEORADIUS's STORE/STOREDIST key (the last
//   one given): the table's Command::written_key, for routing over shards,
//   WATCH and the AOF rewrite; so does georadiusbymember_store_key_at().
// - The session's thread only, as every handler.
//
//   geo_cmd::reply_coordinate(ctx, point.longitude);
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "kv/command_table.hpp"
#include "kv/types/geohash.hpp"

namespace duet::kv::geo_cmd {

[[nodiscard]] bool parse_lonlat(CommandContext& ctx, std::string_view lon, std::string_view lat, geo::Point& p);
[[nodiscard]] bool parse_unit(CommandContext& ctx, std::string_view text, double& to_meters);
void reply_coordinate(CommandContext& ctx, double value);

void geosearch(CommandContext& ctx);
void geosearchstore(CommandContext& ctx);
void georadius(CommandContext& ctx);
void georadius_ro(CommandContext& ctx);
void georadiusbymember(CommandContext& ctx);
void georadiusbymember_ro(CommandContext& ctx);

[[nodiscard]] std::size_t georadius_store_key_at(std::span<const std::string_view> argv) noexcept;
[[nodiscard]] std::size_t georadiusbymember_store_key_at(std::span<const std::string_view> argv) noexcept;

}  // namespace duet::kv::geo_cmd
