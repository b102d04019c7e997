// Text from a scanned repository (paths, source lines, the messages and names that quote them) as
// the formats people read show it. A file name or a source line must not move the cursor, clear
// the screen, recolour or retitle a terminal, start a line of its own that reads like tpulint's
// (a forged "error TPU101"), nor reorder what is shown around it (bidirectional overrides, as in
// "Trojan Source"). The text, github, markdown and html reports, the --timings table and summary,
// and error messages show it this way; JSON, SARIF and GitLab carry the exact text, as JSON
// escapes (json_with_escaped_controls).
#pragma once

#include <string>
#include <string_view>

namespace tpulint::report {

// `text` with each control shown as an escape and everything else as it is: \n and \r; \xNN for
// the other C0 controls but tab, for DEL, for the C1 controls U+0080-U+009F and for each byte
// that is not part of well-formed UTF-8; \uNNNN for the bidirectional controls (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069). Tabs and backslashes stay: an escape and the same
// characters typed in a name look alike here, and the JSON report tells them apart.
std::string visible_text(std::string_view text);

// The same, with tabs as \t and backslashes as \\ too: a field of a tab-separated table, which
// reads back unambiguously.
std::string visible_field(std::string_view text);

// JSON text, a whole document or a string literal, with each C1 control (U+0080-U+009F) and
// bidirectional control written as its \uXXXX escape: the same strings to a parser, and nothing a
// terminal acts on when the JSON is printed (JSON writers escape C0 controls already, but write
// these as they are). Only strings hold bytes above 0x7F, so the document's structure is untouched.
std::string json_with_escaped_controls(std::string json);

}  // namespace tpulint::report
