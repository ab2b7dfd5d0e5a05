// The bitmap commands through Session, and the bitmap module's encodings.
// TODO(issue 25): filled in with the bitmap module.
#include <catch2/catch.hpp>
