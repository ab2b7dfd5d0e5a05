// The hash commands through Session, and the hash module's encodings.
// TODO(issue 25): filled in with the hash module.
#include <catch2/catch.hpp>
