#include "checks/python/TPU40x_torch_cuda_api_table.h"

#include <fmt/format.h>

#include "data/torch_cuda_apis.h"

namespace tpulint::checks::pyapi {

using data::TorchCudaApisRow;

namespace {

// A flag (torch.backends.*) is used when it is set; a function or class when it is called, or
// bound for a later call with functools.partial. Reading a flag for a log line, or handing a
// class to an introspection helper, does nothing on a TPU host.
bool used(std::string_view qualified, Node n, const PythonContext& ctx) {
  Node parent = n.parent();
  if (qualified.starts_with("torch.backends."))
    return parent && parent.kind() == Kind::Assignment && parent.field(python::Field::Left) == n;
  if (call_of(n, ctx)) return true;
  if (!parent || parent.kind() != Kind::ArgumentList) return false;
  Node call = parent.parent();
  const auto& callee = ctx.qualified_name(call.field(python::Field::Function));
  return callee && *callee == "functools.partial" && parent.named_child(0) == n;
}

}  // namespace

TorchCudaApiCheck::TorchCudaApiCheck(std::string_view check_id) : check_id_(check_id) {
  for (const TorchCudaApisRow& row : data::kTorchCudaApis)
    if (row.check == check_id && row.on_tpu_host != "not reported") names_.push_back(row.api);
}

std::optional<ReferenceCheck::Match> TorchCudaApiCheck::match(const std::string& qualified, Node n,
                                                              PythonContext& ctx) const {
  const TorchCudaApisRow* row = find_row(data::kTorchCudaApis, &TorchCudaApisRow::api, qualified);
  if (!row || row->check != check_id_ || row->on_tpu_host == "not reported" || in_test(n, ctx)) return std::nullopt;
  if (!used(qualified, n, ctx)) return std::nullopt;
  bool raises = row->on_tpu_host == "raises";
  if (cuda_guarded(n, ctx))
    return Match{fmt::format("'{}' runs only where CUDA is present: a TPU host skips it", qualified),
                 std::string(row->replacement), true, Severity::Warning};
  std::string effect = raises ? std::string("raises on a TPU host (there is no CUDA device)")
                              : fmt::format("{} on a TPU host", row->on_tpu_host);
  return Match{fmt::format("'{}' {}", qualified, effect), std::string(row->replacement), true,
               raises ? Severity::Error : Severity::Warning};
}

namespace {

std::string list_rows(std::string_view check_id, bool quiet) {
  std::string out;
  for (const auto& row : data::kTorchCudaApis) {
    if (row.check != check_id || (row.on_tpu_host == "not reported") != quiet) continue;
    if (!out.empty()) out += ", ";
    out += quiet ? fmt::format("`{}`", row.api) : fmt::format("`{}` ({})", row.api, row.on_tpu_host);
  }
  return out;
}

}  // namespace

std::string torch_cuda_api_list(std::string_view check_id) { return list_rows(check_id, false); }

std::string torch_cuda_what(std::string_view intro, std::string_view check_id) {
  std::string out = fmt::format("{}, from `checks/data/torch_cuda_apis.tsv` with what each does on a TPU host: {}.",
                                intro, list_rows(check_id, false));
  std::string quiet = list_rows(check_id, true);
  if (!quiet.empty())
    out += fmt::format(" Not reported, because they are harmless there (a no-op, or a query that answers False): {}.",
                       quiet);
  return out;
}

}  // namespace tpulint::checks::pyapi
