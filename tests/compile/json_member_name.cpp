// Compiled, not run, by the test json_writer_member_names_are_checked_when_compiled: as it is,
// it must compile; with NAME_WITH_QUOTE, NAME_WITH_NEWLINE or NAME_TOO_LONG it must not.
#include "report/json_writer.h"

void write(tpulint::report::JsonWriter& w) {
  w.member("plain_name", 1);
#if defined(NAME_WITH_QUOTE)
  w.member("a\"b", 1);
#elif defined(NAME_WITH_NEWLINE)
  w.key("a\nb");
#elif defined(NAME_TOO_LONG)
  w.member("a_name_of_sixty_five_bytes_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1);
#endif
}
