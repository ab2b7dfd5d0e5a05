// The list commands through Session, and the list module's encodings.
// TODO(issue 25): filled in with the list module.
#include <catch2/catch.hpp>
