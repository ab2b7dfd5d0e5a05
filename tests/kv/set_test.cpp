// The set commands through Session, and the set module's encodings.
// TODO(issue 25): filled in with the set module.
#include <catch2/catch.hpp>
