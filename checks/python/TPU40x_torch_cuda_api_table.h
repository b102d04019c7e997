// The torch.cuda / torch.backends API checks (TPU402-TPU408, TPU412) share one table,
// checks/data/torch_cuda_apis.tsv: each row names its check and what the call does on a TPU host.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks::pyapi {

// Reports the uses of the table's APIs whose row names `check_id` (calls, `functools.partial`
// bindings, and assignments to `torch.backends` flags): "raises" rows as
// errors, the others as warnings, "not reported" rows never. A call that runs only when CUDA is
// present (`if torch.cuda.is_available(): ...`) is skipped on a TPU host: it is reported as a
// warning that says so.
class TorchCudaApiCheck : public ReferenceCheck {
 public:
  // Reports the table's rows of `check_id` that are reported at all.
  explicit TorchCudaApiCheck(std::string_view check_id);

  std::span<const std::string_view> reference_names() const override { return names_; }

 protected:
  std::optional<Match> match(const std::string& qualified, Node n, PythonContext& ctx) const override;

 private:
  std::string_view check_id_;
  std::vector<std::string_view> names_;  // the APIs of those rows
};

// The check's part of the table for its docs: "`torch.cuda.synchronize` (raises), ...".
std::string torch_cuda_api_list(std::string_view check_id);

// A check's `what` doc: `intro`, then its rows of the table with what each does on a TPU host,
// then the rows it leaves quiet (if any).
std::string torch_cuda_what(std::string_view intro, std::string_view check_id);

}  // namespace tpulint::checks::pyapi
