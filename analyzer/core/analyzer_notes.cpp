#include "core/analyzer_notes.h"

namespace tpulint::notes {

const CheckInfo kSyntaxError{
    .id = "TPU901",
    .name = "syntax-error",
    .summary = "the file has syntax errors; the rest of it was still analyzed",
    .languages = Language::Python | Language::Cxx | Language::Cuda | Language::Cmake,
    .severity = Severity::Info,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "A Python file that does not parse cleanly. tree-sitter recovers from the error, so "
                "the code around it is still checked, but findings inside the broken region can be "
                "missing. For C/C++/CUDA, a fatal Clang error that stops its parse (\"bracket nesting level "
                "exceeded maximum of 256\", an include nested too deeply): kernels and launches after it "
                "are still found in the file's tokens, other findings there can be missing. The ordinary "
                "errors of a parse without headers are not reported. For a CMake file, an unterminated quoted "
                "or bracket argument, a missing `)` or text that is no command: the commands after it are not "
                "analyzed.",
        .why = "Nothing about TPUs: it tells you the analysis of this file may be incomplete.",
        .example = "def forward(self, x)\n    return x  # missing ':' above",
        .use_instead = "Fix the syntax error, or exclude generated or template files with `--exclude`.",
        .effort = "None: a note about the analysis, not porting work. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

const CheckInfo kFileSkipped{
    .id = "TPU902",
    .name = "file-skipped",
    .summary = "the file was not analyzed (binary, too large, not decodable, unreadable or a symlink)",
    .languages = Language::Python | Language::Cxx | Language::Cuda | Language::Cmake,
    .severity = Severity::Info,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "A file with a Python, C/C++ or CUDA extension (or a CMake file) that tpulint did not analyze, with the "
                "reason: binary content (NUL bytes), larger than `--max-file-size`, text that cannot be decoded "
                "(Python is read in the encoding a PEP 263 declaration names, `# -*- coding: latin-1 -*-` on "
                "line 1 or 2, else as UTF-8; any file with a UTF-16 byte-order mark as UTF-16), unreadable, "
                "or a symlink (symlinks are never followed: one that "
                "stays in the scanned root is analyzed at its real path, one that leaves it is not "
                "analyzed at all).",
        .why = "Nothing about TPUs: every file in scope is either analyzed or reported with a reason, "
               "so a score never silently covers less code than you think.",
        .example = "weights.py   # a 300 MB file of generated constants",
        .use_instead = "Raise `--max-file-size`, declare the file's encoding (PEP 263) or re-encode it as UTF-8, or "
                       "exclude it with `--exclude`.",
        .effort = "None: a note about the analysis. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

const CheckInfo kAnalysisFailed{
    .id = "TPU903",
    .name = "analysis-failed",
    .summary = "a frontend failed on the file; its findings may be missing",
    .languages = Language::Python | Language::Cxx | Language::Cuda | Language::Cmake,
    .severity = Severity::Info,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "The Python or C/C++/CUDA frontend failed on this file (an internal error). The other "
                "files' findings are complete; this file's may not be.",
        .why = "Nothing about TPUs: it marks a gap in the analysis. Please report it with the file.",
        .example = "",
        .use_instead = "Report the file to the tpulint maintainers; exclude it meanwhile.",
        .effort = "None: a note about the analysis. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

const CheckInfo kUnusedSuppression{
    .id = "TPU904",
    .name = "unused-suppression",
    .summary = "a suppression comment that suppresses nothing",
    .languages = Language::Python | Language::Cxx | Language::Cuda | Language::Cmake,
    .severity = Severity::Info,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "A `tpulint: ignore[...]`, `ignore-next-line[...]`, `disable[...]` or `ignore-file[...]` comment, "
                "or one entry of its list, that suppressed no finding in this run. Only checks that ran count: "
                "`--select TPU2` never calls a `TPU401` suppression unused.",
        .why = "Stale suppressions hide the next real finding on that line. Keeping them exact keeps them honest.",
        .example = "x = y.to(device)  # tpulint: ignore[TPU401]   <- nothing to suppress any more",
        .use_instead = "Remove the comment, or the entry named in the message.",
        .effort = "None: a note about the analysis. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

const CheckInfo kInvalidSuppression{
    .id = "TPU905",
    .name = "invalid-suppression",
    .summary = "a malformed suppression comment, an unknown check in it, or an unmatched disable/enable",
    .languages = Language::Python | Language::Cxx | Language::Cuda | Language::Cmake,
    .severity = Severity::Warning,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "A `tpulint:` comment that tpulint cannot apply: an unknown directive (`tpulint: ignor`), an entry "
                "that is not a check ID or prefix or matches no check, an unterminated list, an `enable` without a "
                "`disable` above it, or a `disable` that is never enabled again.",
        .why = "A suppression that silently does nothing is worse than none: the finding it was meant for is "
               "still reported, or a block stays disabled to the end of the file.",
        .example = "# tpulint: disable[TPU4]\nmodel.cuda()\n# (no 'tpulint: enable[TPU4]' below)",
        .use_instead = "The forms are `ignore[IDS]` (this line), `ignore-next-line[IDS]`, `disable[IDS]` ... "
                       "`enable[IDS]` (a block) and `ignore-file[IDS]`, after `#` in Python and `//` in C/C++/CUDA; "
                       "IDS is a comma-separated list of check IDs or prefixes such as `TPU201,TPU4`.",
        .effort = "None: a note about the analysis. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

const CheckInfo kTimeBudget{
    .id = "TPU906",
    .name = "time-budget",
    .summary = "the C/C++/CUDA parse ran past its time budget; the file was analyzed in its tokens only",
    .languages = Language::Cxx | Language::Cuda,
    .severity = Severity::Info,
    .effort = EffortClass::None,
    .hours = {0, 0},
    .doc = {
        .what = "Clang's parse of this C/C++/CUDA file used more CPU time than `--cxx-time-budget` (default 10 s; "
                "`cxx-time-budget` in the configuration), so it was stopped and the file was analyzed from its tokens "
                "alone, as the lexical pass reads them: kernels (`__global__` definitions), launches (`<<<...>>>`), "
                "calls, macro uses, qualified names and `#include` lines are still reported, inactive `#if` branches "
                "included. Findings that need Clang's syntax tree (device functions, inline assembly) can be missing. "
                "The file is not lost: unlike `--file-timeout` (TPU903), the scan keeps what the tokens show.",
        .why = "Nothing about TPUs: it tells you the analysis of this file is coarser than the others'. A "
               "budget overrun depends on the machine's speed, so such a result is never cached.",
        .example = "",
        .use_instead = "Raise `--cxx-time-budget` (0: no budget), or give tpulint a compile database (`-p`) whose "
                       "flags make the file cheaper to parse.",
        .effort = "None: a note about the analysis. It does not change the score.",
        .heuristic = "",
        .references = {},
    },
};

}  // namespace tpulint::notes
