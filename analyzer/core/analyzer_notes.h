// The analyzer's own notes (TPU9xx): findings about the analysis rather than the code.
// They live in core because core and the frontends emit them; the registry lists them with
// the checks so that they are documented, selectable and reported like any other finding.
#pragma once

#include "core/check_info.h"

namespace tpulint::notes {

extern const CheckInfo kSyntaxError;     // TPU901: the file has syntax errors; analyzed in part
extern const CheckInfo kFileSkipped;     // TPU902: the file was not analyzed (binary, too large, ...)
extern const CheckInfo kAnalysisFailed;  // TPU903: a frontend failed on the file
extern const CheckInfo kUnusedSuppression;   // TPU904: a suppression comment that suppresses nothing
extern const CheckInfo kInvalidSuppression;  // TPU905: a malformed or unmatched suppression comment
extern const CheckInfo kTimeBudget;          // TPU906: past its time budget, a file was analyzed lexically

inline const CheckInfo* const kAll[] = {&kSyntaxError, &kFileSkipped, &kAnalysisFailed, &kUnusedSuppression,
                                        &kInvalidSuppression, &kTimeBudget};

}  // namespace tpulint::notes
