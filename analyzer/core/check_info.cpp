#include "core/check_info.h"

namespace tpulint {

Category CheckInfo::category() const {
  // The registry test guarantees every registered ID is well formed.
  return category_from_id(id).value_or(Category::AnalyzerNote);
}

}  // namespace tpulint
