// The kernel classifier (checks/kernel_class.h) and its table (checks/data/standard_kernels.tsv):
// name matching, file matching, the elementwise rule, device functions and hour sharing; and the
// files that only instantiate a template.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "checks/kernel_class.h"
#include "checks/registry.h"
#include "cxx/native_analyzer.h"

using namespace tpulint;
using namespace tpulint::checks;

namespace {

std::string op_of(std::string_view name) {
  const kernels::StandardOp* op = kernels::op_named(name);
  return op ? std::string(op->op) : "";
}

std::string file_op(std::string_view path) {
  const kernels::StandardOp* op = kernels::op_of_file(path);
  return op ? std::string(op->op) : "";
}

template <typename F>
void for_each_word(std::string_view words, F f) {
  size_t begin = 0;
  while (begin < words.size()) {
    size_t space = words.find(' ', begin);
    if (space == std::string_view::npos) space = words.size();
    f(words.substr(begin, space - begin));
    begin = space + 1;
  }
}

cxx::FunctionFact kernel(std::string name, uint32_t lines, cxx::BodyShape shape = {}) {
  cxx::FunctionFact f;
  f.name = std::move(name);
  f.is_kernel = true;
  f.lines = lines;
  f.shape = shape;
  return f;
}

cxx::FunctionFact device_function(std::string name, uint32_t lines, cxx::BodyShape shape = {}) {
  cxx::FunctionFact f = kernel(std::move(name), lines, shape);
  f.is_kernel = false;
  f.is_device = true;
  return f;
}

cxx::CallFact call(std::string from, std::string callee) {
  cxx::CallFact c;
  c.function = std::move(from);
  c.callee = std::move(callee);
  return c;
}

}  // namespace

TEST_CASE("identifiers split into words at underscores, case changes and digits", "[checks][kernels]") {
  using V = std::vector<std::string>;
  CHECK(kernels::identifier_words("roi_align_forward_cuda_kernel") == V{"roi", "align", "forward", "cuda", "kernel"});
  CHECK(kernels::identifier_words("RoIAlignForward") == V{"ro", "i", "align", "forward"});
  CHECK(kernels::identifier_words("ROIAlign") == V{"roi", "align"});
  CHECK(kernels::identifier_words("cunn_SoftMaxXEntropyForward") == V{"cunn", "soft", "max", "x", "entropy", "forward"});
  CHECK(kernels::identifier_words("kOptimizer32bit2State") == V{"k", "optimizer", "32", "bit", "2", "state"});
  CHECK(kernels::identifier_words("upfirdn2d.cu") == V{"upfirdn", "2", "d", "cu"});
  CHECK(kernels::identifier_words("").empty());
}

TEST_CASE("a kernel's name finds its standard op, the longest pattern winning", "[checks][kernels]") {
  CHECK(op_of("roi_align_forward_cuda_kernel") == "roi_align");
  CHECK(op_of("RoIAlignForward") == "roi_align");
  CHECK(op_of("roialign_backward") == "roi_align");
  CHECK(op_of("roi_align_rotated_forward_cuda_kernel") == "roi_align_rotated");
  CHECK(op_of("riroi_align_rotated_backward_cuda_kernel") == "roi_align_rotated");
  CHECK(op_of("ms_deformable_im2col_gpu_kernel") == "ms_deform_attn");
  CHECK(op_of("modulated_deformable_col2im_coord_gpu_kernel") == "deform_conv");
  CHECK(op_of("deformable_im2col_gpu_kernel") == "deform_conv");
  CHECK(op_of("cuApplyLayerNorm") == "layer_norm");
  CHECK(op_of("cuApplyRMSNorm") == "rms_norm");
  CHECK(op_of("cunn_SoftMaxXEntropyForward") == "cross_entropy");
  CHECK(op_of("scaled_upper_triang_masked_softmax_warp_forward") == "softmax");
  CHECK(op_of("nms_cuda") == "nms");
  CHECK(op_of("nms_rotated_cuda_kernel") == "nms_rotated");
  CHECK(op_of("iou3d_nms3d_forward_cuda_kernel") == "nms_rotated");
  CHECK(op_of("iou3d_boxes_overlap_bev_forward_cuda_kernel") == "box_iou_rotated");
  CHECK(op_of("bbox_overlaps_cuda_kernel") == "box_iou");
  CHECK(op_of("multi_tensor_adam_cuda") == "fused_adam");
  CHECK(op_of("multi_tensor_l2norm_cuda") == "foreach_ops");
  CHECK(op_of("flash_fwd_splitkv_kernel") == "flash_attention");
  CHECK(op_of("mha_varlen_fwd") == "flash_attention");
  CHECK(op_of("mha_fwd") == "attention");
  CHECK(op_of("paged_attention_v2_kernel") == "paged_attention");
  CHECK(op_of("kQuantizeBlockwise") == "quantize_blockwise");
  CHECK(op_of("gemm_4bit_sm80_m16n8k16") == "quantized_matmul");
  CHECK(op_of("sigmoid_focal_loss_forward_cuda_kernel") == "focal_loss");
  CHECK(op_of("fused_bias_act_kernel") == "activation");
  CHECK(op_of("filtered_lrelu_kernel") == "filtered_lrelu");
  CHECK(op_of("furthest_point_sampling_with_dist_forward_cuda_kernel") == "furthest_point_sample");
  CHECK(op_of("three_nn_forward_cuda_kernel") == "three_interpolate");
  CHECK(op_of("dynamic_voxelize_kernel") == "voxelization");
  CHECK(op_of("_layer_norm_bwd_dx_fused") == "layer_norm");
}

TEST_CASE("near-miss names match no standard op", "[checks][kernels]") {
  for (std::string_view name : {"roi_aligned_gather", "anms_select", "layernormal_sample", "adamant_update",
                                "dimnms", "devoxelize_forward_kernel", "kernel_grid", "sparse24_apply_kernel",
                                "hash_kernel", "kernel_march_rays", "scatter_kernel", "gather_kernel", "kfunc",
                                "transducer_loss_forward", "fetch_on_demand_gemm_fp16_1", "attention_bias", ""})
    CHECK(op_of(name) == "");
}

TEST_CASE("a file's name or directory finds its standard op", "[checks][kernels]") {
  CHECK(file_op("mmcv/ops/csrc/common/cuda/nms_cuda_kernel.cuh") == "nms");
  CHECK(file_op("mmcv/ops/csrc/common/cuda/nms_rotated_cuda.cuh") == "nms_rotated");
  CHECK(file_op("models/ops/src/cuda/ms_deform_im2col_cuda.cuh") == "ms_deform_attn");
  CHECK(file_op("apex/contrib/csrc/group_norm_v2/gn_cuda_kernel.cuh") == "group_norm");
  CHECK(file_op("csrc/flash_attn/src/flash_fwd_hdim128_fp16_sm80.cu") == "flash_attention");
  CHECK(file_op("csrc/layer_norm_cuda_kernel.cu") == "layer_norm");
  CHECK(file_op("torch_utils/ops/upfirdn2d.cu") == "upfirdn2d");
  CHECK(file_op("src/encoding.cu") == "");
  CHECK(file_op("gridencoder/src/gridencoder.cu") == "");
  CHECK(file_op("torchsparse/backend/convolution/convolution_gather_scatter_cuda.cu") == "");
}

TEST_CASE("sparse attention is no standard attention: its longer names keep the attention rows off",
          "[checks][kernels]") {
  // MInference's vertical-slash kernels, native-sparse-attention's selection, MoBA.
  CHECK(op_of("_triton_mixed_sparse_attn_fwd_kernel") == "");
  CHECK(op_of("parallel_nsa_fwd_kernel") == "");
  CHECK(op_of("convert_vertical_slash_indexes_kernel") == "");
  CHECK(op_of("moba_attn_varlen") == "");
  CHECK(file_op("minference/ops/pit_sparse_flash_attention.py") == "");
  CHECK(file_op("fastvideo-kernel/csrc/attention/block_sparse_h100.cu") == "");
  // Near misses: dense attention, and sparse ops of their own rows.
  CHECK(op_of("_attn_fwd") == "attention");
  CHECK(op_of("flash_fwd_kernel") == "flash_attention");
  CHECK(file_op("minference/ops/flash_attention.py") == "flash_attention");
  CHECK(file_op("csrc/attention/fmha_fwd.cu") == "attention");
  CHECK(op_of("sparse_gemm_kernel") == op_of("semi_structured_sparse_gemm"));
}

TEST_CASE("the standard-op table is well formed", "[checks][kernels][data]") {
  const std::regex pattern("^[a-z0-9]+(_[a-z0-9]+)*$");
  const std::regex dotted("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+$");
  std::set<std::string_view> names;
  REQUIRE(std::size(data::kStandardKernels) >= 40);
  for (const kernels::StandardOp& row : data::kStandardKernels) {
    INFO(row.op);
    CHECK((row.kind == "standard" || row.kind == "trivial" || row.kind == "novel"));
    const bool novel = row.kind == "novel";
    CHECK_FALSE(row.title.empty());
    CHECK(row.use.empty() == novel);
    CHECK(row.replacement.empty() == novel);
    CHECK_FALSE(row.names.empty());
    if (!novel) {
      HoursRange h = kernels::row_hours(row);
      CHECK(h.low > 0);
      CHECK(h.low <= h.high);
      // A swap plus numerics validation; a trivial op is tensor ops, an hour or two.
      CHECK(h.high <= (row.kind == "trivial" ? 3 : 24));
      CHECK(h.high >= (row.kind == "trivial" ? 1 : 4));
    } else {
      CHECK(row.hours.empty());
      CHECK(row.registry.empty());
    }
    size_t sources = 0;
    for_each_word(row.sources, [&](std::string_view url) {
      ++sources;
      CHECK(url.starts_with("https://"));
    });
    CHECK(sources >= 1);
    for_each_word(row.names, [&](std::string_view p) {
      INFO(p);
      CHECK(std::regex_match(std::string(p), pattern));
      CHECK(names.insert(p).second);  // one row per pattern
      // No longer pattern of another row hides it; a novel row's names no standard op.
      CHECK(op_of(p) == (novel ? "" : row.op));
    });
    for_each_word(row.files, [&](std::string_view p) {
      INFO(p);
      CHECK(std::regex_match(std::string(p), pattern));
      CHECK(file_op(std::string(p) + ".cu") == (novel ? "" : row.op));
    });
    for_each_word(row.calls, [&](std::string_view c) { CHECK(std::regex_match(std::string(c), dotted)); });
  }
}

TEST_CASE("a short kernel with no device features and no loop but a grid-stride one is trivial", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(kernel("scale", 3, {.statements = 2, .assignments = 1}));
  facts.functions.push_back(kernel("axpy_strided", 5, {.loops = 1, .grid_stride_loops = 1, .statements = 3, .assignments = 2}));
  facts.functions.push_back(kernel("row_dot", 6, {.loops = 1, .statements = 4}));
  facts.functions.push_back(kernel("long_map", 120, {.statements = 60, .assignments = 30}));
  cxx::FunctionFact reduce = kernel("block_sum", 8, {.statements = 4});
  reduce.metrics.shared_memory = 1;
  facts.functions.push_back(reduce);
  cxx::FunctionFact ptx = kernel("with_asm", 4, {.statements = 2, .assignments = 1, .inline_assembly = 1});
  facts.functions.push_back(ptx);
  // Hands its work to a functor: apex's multi_tensor_apply_kernel.
  facts.functions.push_back(kernel("apply_functor", 4, {.statements = 1}));
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[0].kind == kernels::Kind::Trivial);
  CHECK(c[0].op == nullptr);
  CHECK(c[0].hours.high <= 2);
  CHECK(c[1].kind == kernels::Kind::Trivial);
  CHECK(c[2].kind == kernels::Kind::Novel);
  CHECK(c[3].kind == kernels::Kind::Novel);
  CHECK(c[4].kind == kernels::Kind::Novel);
  CHECK(c[5].kind == kernels::Kind::Novel);
  CHECK(c[6].kind == kernels::Kind::Novel);
}

TEST_CASE("constant-count, unrolled and grid-iterator loops keep a kernel elementwise, data-sized ones do not",
          "[checks][kernels]") {
  cxx::NativeFile facts;
  // torchsparse's hash_kernel: a fixed 4-step loop.
  facts.functions.push_back(kernel("hash_rows", 14, {.loops = 1, .fixed_loops = 1, .statements = 6, .assignments = 4}));
  // A grid-stride loop around an unrolled lane loop.
  facts.functions.push_back(kernel("pad_lanes", 12,
                                   {.loops = 2, .grid_stride_loops = 1, .fixed_loops = 1, .statements = 4, .assignments = 2}));
  // DeepSpeed's bias_add_transform_0213: 40 lines, 20 statements, no loop.
  facts.functions.push_back(kernel("bias_add_permute", 40, {.statements = 20, .assignments = 15}));
  // Near misses: a data-sized loop beside a fixed one; two grid-stride loops; a long kernel with shared memory.
  facts.functions.push_back(kernel("gather_rows", 12, {.loops = 2, .fixed_loops = 1, .statements = 5, .assignments = 3}));
  facts.functions.push_back(kernel("two_passes", 10, {.loops = 2, .grid_stride_loops = 2, .statements = 4, .assignments = 2}));
  cxx::FunctionFact staged = kernel("staged_transpose", 40, {.loops = 2, .fixed_loops = 2, .statements = 10, .assignments = 4});
  staged.metrics.shared_memory = 1;
  facts.functions.push_back(staged);
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[0].kind == kernels::Kind::Trivial);
  CHECK(c[1].kind == kernels::Kind::Trivial);
  CHECK(c[2].kind == kernels::Kind::Trivial);
  CHECK(c[2].hours.high <= 3);
  CHECK(c[3].kind == kernels::Kind::Novel);
  CHECK(c[4].kind == kernels::Kind::Novel);
  CHECK(c[5].kind == kernels::Kind::Novel);
}

TEST_CASE("one trivial rule for every kernel language", "[checks][kernels]") {
  kernels::KernelShape copy{.lines = 20, .statements = 6, .stores = 1};
  CHECK(kernels::trivial_shape(copy));
  kernels::KernelShape no_store = copy;
  no_store.stores = 0;
  CHECK_FALSE(kernels::trivial_shape(no_store));
  kernels::KernelShape tiled = copy;
  tiled.matmul = true;
  CHECK_FALSE(kernels::trivial_shape(tiled));
  kernels::KernelShape accumulating = copy;
  accumulating.open_loops = 1;
  CHECK_FALSE(kernels::trivial_shape(accumulating));
  kernels::KernelShape atomics = copy;
  atomics.block_level = true;
  CHECK_FALSE(kernels::trivial_shape(atomics));
  kernels::KernelShape huge{.lines = 200, .statements = 90, .stores = 10};
  CHECK_FALSE(kernels::trivial_shape(huge));

  // Python kernels: the name's row, then the file's standard row, then the shape, then the file's trivial row.
  CHECK(kernels::classify_shaped("_backward", "ops/softmax.py", copy).op->op == "softmax");
  CHECK(kernels::classify_shaped("_backward", "ops/swiglu.py", copy).op == nullptr);
  CHECK(kernels::classify_shaped("_backward", "ops/swiglu.py", accumulating).op->op == "activation");
  CHECK(kernels::classify_shaped("_copy_rows", "ops/misc.py", copy).kind == kernels::Kind::Trivial);
  CHECK(kernels::classify_shaped("_copy_rows", "ops/misc.py", accumulating).kind == kernels::Kind::Novel);
  CHECK(kernels::classify_shaped("_fwd", "ops/rms_norm.py", accumulating).op->op == "rms_norm");
  CHECK(kernels::classify_shaped("_rms_norm_fwd", "ops/misc.py", copy).op->op == "rms_norm");  // the name first
  // A trivial row's name does not take a kernel that does matmuls (Liger's mlp.py `_swiglu_kernel_forward`).
  kernels::KernelShape mlp{.lines = 56, .statements = 30, .stores = 1, .matmul = true};
  CHECK(kernels::classify_shaped("_swiglu_kernel_forward", "ops/mlp.py", mlp).kind == kernels::Kind::Novel);
  CHECK(kernels::classify_shaped("_swiglu_kernel_forward", "ops/fused_mlp.py", mlp).op->op == "fused_mlp");
  CHECK(kernels::classify_shaped("_swiglu_kernel_forward", "ops/mlp.py", copy).op->op == "activation");
}

TEST_CASE("a kernel inserting into a data structure defined elsewhere is not elementwise", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(kernel("insert_coords", 12, {.statements = 4, .assignments = 2}));
  facts.functions.push_back(kernel("scale_coords", 12, {.statements = 4, .assignments = 2}));
  facts.calls = {call("insert_coords", "insert"), call("scale_coords", "std::min")};
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[0].kind == kernels::Kind::Novel);
  CHECK(c[1].kind == kernels::Kind::Trivial);
}

TEST_CASE("a trivial row's name does not take a CUDA kernel with tensor cores", "[checks][kernels]") {
  cxx::NativeFile facts;
  cxx::FunctionFact gemm = kernel("gelu_gemm_kernel", 60, {.loops = 1, .statements = 30, .assignments = 10});
  gemm.metrics.tensor_core = 2;
  facts.functions.push_back(gemm);
  facts.functions.push_back(kernel("gelu_kernel", 5, {.loops = 1, .statements = 3}));
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[0].kind == kernels::Kind::Novel);
  CHECK(c[1].kind == kernels::Kind::Trivial);
}

TEST_CASE("the table knows the names the validation found missing", "[checks][kernels]") {
  CHECK(op_of("cached_quantization") == "quantize_blockwise");
  CHECK(file_op("csrc/quantization/quantize.cu") == "quantize_blockwise");
  CHECK(file_op("csrc/fp_quantizer/fp_quantize.cu") == "quantize_blockwise");
  CHECK(op_of("kOptimizer32bit1State") == "fused_optimizer");
  CHECK(op_of("kPreconditionOptimizer32bit2State") == "fused_optimizer");
  CHECK(op_of("kOptimizerStatic8bit2StateBlockwise") == "fused_optimizer");
  CHECK(op_of("_optimizer_update_1state_32bit_triton_kernel") == "fused_optimizer");
  CHECK(op_of("multi_tensor_apply_kernel") == "foreach_ops");
  CHECK(op_of("_moe_bwd_dW2_kernel") == "grouped_gemm");
  CHECK(op_of("_fused_moe_kernel") == "grouped_gemm");
  CHECK(op_of("_moe_router_histogram_kernel") == "moe_permute");
  CHECK(op_of("moe_gather_kernel") == "moe_permute");
  CHECK(op_of("prepare_varlen_num_blocks_kernel") == "flash_attention");
  CHECK(file_op("hopper/flash_prepare_scheduler.cu") == "flash_attention");
  CHECK(op_of("softplus") == "activation");
  CHECK(file_op("unsloth/kernels/geglu.py") == "activation");
  CHECK(file_op("unsloth/kernels/swiglu.py") == "activation");
  CHECK(file_op("include/tiny-cuda-nn/encodings/spherical_harmonics.h") == "positional_encoding");
  CHECK(op_of("dropout_kernel") == "dropout");
  CHECK(op_of("bias_add_transform_0213") == "layout_change");
  CHECK(op_of("transform4d_0213") == "layout_change");
  CHECK(op_of("pad_data_kernel") == "layout_change");
  CHECK(op_of("roll_and_window_partition_forward_cuda_kernel") == "layout_change");
  // Near misses: these stay out.
  CHECK(op_of("fused_moe_aux_loss_forward_kernel") == "");   // an aux loss, not the experts' GEMM
  CHECK(op_of("quantize_transpose_nvfp4_kernel") == "quantize_blockwise");  // no bare `transpose` row
  CHECK(op_of("apply_sqrtsoftplus_on_float") == "");
  CHECK(op_of("zero_pad_kernel") == "");
}

TEST_CASE("a trivial op's helper in a standard op's file goes with that op", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(device_function("apply_dropout", 20, {.loops = 1, .statements = 8}));
  auto c = kernels::classify_native(facts, "csrc/flash_attn/src/flash_fwd_kernel.h");
  REQUIRE(c[0].op);
  CHECK(c[0].op->op == "flash_attention");
  auto d = kernels::classify_native(facts, "csrc/misc/helpers.h");
  REQUIRE(d[0].op);
  CHECK(d[0].op->op == "dropout");
}

TEST_CASE("the name comes first, then the shape, then the file", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(kernel("adam_cuda_kernel", 3, {.statements = 2, .assignments = 1}));  // elementwise, but Adam
  facts.functions.push_back(kernel("maybe_cast_kernel", 3, {.statements = 2, .assignments = 1}));  // a cast beside the optimizer
  facts.functions.push_back(kernel("reversible_update", 50, {.loops = 2, .statements = 20}));
  auto c = kernels::classify_native(facts, "apex/contrib/csrc/optimizers/fused_adam_cuda_kernel.cu");
  CHECK(c[0].kind == kernels::Kind::Standard);
  CHECK(c[0].op->op == "fused_adam");
  CHECK(c[1].kind == kernels::Kind::Trivial);
  CHECK(c[1].op == nullptr);
  CHECK(c[2].kind == kernels::Kind::Standard);
  CHECK(c[2].op->op == "fused_adam");
  // One op's hours, shared by its two kernels in the file.
  HoursRange row = kernels::row_hours(*c[0].op);
  CHECK(c[0].hours.low + c[2].hours.low == Approx(row.low));
  CHECK(c[0].hours.high + c[2].hours.high == Approx(row.high));
}

TEST_CASE("a device function takes the class of the kernels of its file that call it", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(device_function("bilinear", 10, {.statements = 3}));
  facts.functions.push_back(device_function("lerp", 2, {.statements = 1}));
  facts.functions.push_back(device_function("probe", 8, {.loops = 1, .statements = 3}));
  facts.functions.push_back(device_function("unused", 2, {.statements = 1}));
  facts.functions.push_back(kernel("roi_align_forward_kernel", 40, {.loops = 2, .statements = 10}));
  facts.functions.push_back(kernel("lerp_all", 4, {.statements = 2, .assignments = 1}));
  facts.functions.push_back(kernel("hash_insert", 20, {.loops = 1, .statements = 8}));
  facts.calls = {call("roi_align_forward_kernel", "bilinear"), call("bilinear", "ops::lerp"), call("lerp_all", "lerp"),
                 call("hash_insert", "probe")};
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[4].kind == kernels::Kind::Standard);
  CHECK(c[5].kind == kernels::Kind::Trivial);  // its helper is simple arithmetic
  CHECK(c[6].kind == kernels::Kind::Novel);
  CHECK(c[0].kind == kernels::Kind::Standard);  // through roi_align's call
  CHECK(c[0].op == c[4].op);
  CHECK(c[0].hours.high == 0);
  CHECK(c[0].by_callers);
  CHECK(c[1].kind == kernels::Kind::Standard);  // reached from roi_align through bilinear, and from lerp_all
  CHECK(c[2].kind == kernels::Kind::Novel);
  CHECK(c[2].by_callers);
  CHECK(c[3].kind == kernels::Kind::Novel);
  CHECK_FALSE(c[3].by_callers);
}

TEST_CASE("a kernel calling a looping helper is not elementwise", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(device_function("sum_row", 6, {.loops = 1, .statements = 3}));
  facts.functions.push_back(kernel("normalize", 4, {.statements = 2, .assignments = 1}));
  facts.calls = {call("normalize", "sum_row")};
  auto c = kernels::classify_native(facts, "src/ops.cu");
  CHECK(c[1].kind == kernels::Kind::Novel);
}

TEST_CASE("helpers no kernel of the file calls carry their op's hours when no kernel does", "[checks][kernels]") {
  cxx::NativeFile facts;
  facts.functions.push_back(device_function("operator()", 30, {.loops = 2, .statements = 12}));
  facts.functions.push_back(device_function("operator()", 30, {.loops = 2, .statements = 12}));
  auto c = kernels::classify_native(facts, "csrc/multi_tensor_adam.cu");
  REQUIRE(c[0].op);
  CHECK(c[0].op->op == "fused_adam");
  HoursRange row = kernels::row_hours(*c[0].op);
  CHECK(c[0].hours.high + c[1].hours.high == Approx(row.high));
}

TEST_CASE("Python kernels are classified by name and file only", "[checks][kernels]") {
  CHECK(kernels::classify_named("_rms_norm_fwd_kernel", "ops/triton/norm.py").kind == kernels::Kind::Standard);
  CHECK(kernels::classify_named("_swiglu_forward_kernel", "ops/act.py").kind == kernels::Kind::Trivial);
  CHECK(kernels::classify_named("_fwd_kernel", "ops/triton/flash_attention.py").op->op == "flash_attention");
  CHECK(kernels::classify_named("_fwd_kernel", "ops/triton/scan.py").kind == kernels::Kind::Novel);
}

TEST_CASE("a classified finding names the replacement in its message and hint", "[checks][kernels]") {
  kernels::Classification c = kernels::from_row(*kernels::op_named("nms_kernel"));
  CHECK(kernels::verdict(c).find(std::string(c.op->use)) != std::string::npos);
  CHECK(kernels::hint(c).find(std::string(c.op->replacement)) != std::string::npos);
  Finding f;
  f.effort = EffortClass::High;
  kernels::apply(f, c, "nms_kernel");
  CHECK(f.effort == EffortClass::Medium);
  CHECK(f.subject == "nms");
  Finding novel;
  novel.effort = EffortClass::High;
  kernels::apply(novel, kernels::Classification{}, "k");
  CHECK(novel.effort == EffortClass::High);
}

TEST_CASE("the findings of a file that only instantiates a template join its work item at no cost", "[checks][kernels]") {
  // flash-attention's 400-odd generated files each used to be priced as a CUTLASS use.
  auto dir = std::filesystem::temp_directory_path() / "tpulint_kernel_class_test";
  std::filesystem::create_directories(dir);
  std::vector<std::string_view> all;
  for (const CheckDef* def : checks::all_checks()) all.push_back(def->info.id);
  cxx::NativeAnalyzer analyzer(checks::native_checks(all), {});
  auto analyze = [&](const std::string& text) {
    SourceFile file("flash_fwd_hdim128_fp16_sm80.cu", dir / "flash_fwd_hdim128_fp16_sm80.cu", Language::Cuda, text);
    FileResult result;
    analyzer.analyze(file, result);
    return result.findings;
  };
  const std::string generated =
      "#include \"flash_fwd_launch_template.h\"\n"
      "template<>\n"
      "void run_mha_fwd_<cutlass::half_t, 128, false>(Flash_fwd_params &params, cudaStream_t stream) {\n"
      "    run_mha_fwd_hdim128<cutlass::half_t, false>(params, stream);\n"
      "}\n";
  std::vector<Finding> findings = analyze(generated);
  REQUIRE_FALSE(findings.empty());
  for (const Finding& f : findings) {
    CHECK(f.effort == EffortClass::None);
    CHECK(f.hours.high == 0);
    CHECK(f.subject == "run_mha_fwd_hdim128");
    CHECK(f.message.find("only instantiates 'run_mha_fwd_hdim128'") != std::string_view::npos);
  }
  // With code of its own, the same file is priced in full.
  for (const Finding& f : analyze(generated + "int heads(int h) { return h; }\n")) CHECK(f.effort != EffortClass::None);
}

TEST_CASE("inline assembly in device code is priced with the function it is in, PTX in host code on its own",
          "[checks][kernels]") {
  auto dir = std::filesystem::temp_directory_path() / "tpulint_kernel_class_test";
  std::filesystem::create_directories(dir);
  cxx::NativeAnalyzer analyzer(checks::native_checks(std::vector<std::string_view>{"TPU101", "TPU103"}), {});
  SourceFile file("scan_kernel.cu", dir / "scan_kernel.cu", Language::Cuda,
                  "__global__ void scan_kernel(const float* in, float* out) {\n"
                  "  float v;\n"
                  "  asm(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(v) : \"l\"(in + threadIdx.x));\n"
                  "  __shared__ float s[256];\n"
                  "  s[threadIdx.x] = v;\n"
                  "  __syncthreads();\n"
                  "  for (int k = 1; k < blockDim.x; k *= 2) s[threadIdx.x] += s[threadIdx.x - k];\n"
                  "  out[threadIdx.x] = s[threadIdx.x];\n"
                  "}\n"
                  "inline void fence() { asm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\"); }\n");
  FileResult result;
  analyzer.analyze(file, result);
  std::vector<const Finding*> device_asm, host_asm, kernel_defs;
  for (const Finding& f : result.findings) {
    if (f.check_id == "TPU101") kernel_defs.push_back(&f);
    if (f.check_id == "TPU103") (f.start.line == 3 ? device_asm : host_asm).push_back(&f);
  }
  REQUIRE(kernel_defs.size() == 1);
  REQUIRE(device_asm.size() == 1);
  REQUIRE(host_asm.size() == 1);
  CHECK(kernel_defs[0]->hours.high > 0);
  CHECK(device_asm[0]->hours.high == 0);
  CHECK(device_asm[0]->message.find("rewritten with 'scan_kernel'") != std::string_view::npos);
  CHECK(host_asm[0]->hours.low == 8);
  CHECK(host_asm[0]->hours.high == 24);
}

TEST_CASE("Mamba's causal depthwise conv1d is a standard op, by kernel name and by file", "[checks][kernels]") {
  for (std::string_view name : {"causal_conv1d_fwd_kernel", "causal_conv1d_channellast_bwd_kernel", "causal_conv1d_update_kernel",
                                "_causal_conv1d_fwd_kernel"})
    CHECK(op_of(name) == "causal_conv1d");
  CHECK(file_op("csrc/causal_conv1d_bwd.cu") == "causal_conv1d");
  CHECK(op_of("conv1d_kernel") != "causal_conv1d");  // a plain convolution is not this op
}

TEST_CASE("3D detection's point and box ops are standard ops, by kernel name and by file", "[checks][kernels]") {
  // mmdetection3d / OpenPCDet / PointRCNN / PointPillars op directories, as vendored by BEV and LiDAR detectors.
  CHECK(op_of("boxes_iou_bev_kernel") == "box_iou_rotated");
  CHECK(op_of("rotate_iou_kernel_eval") == "box_iou_rotated");
  CHECK(file_op("mmdet3d/ops/iou3d/src/iou3d_kernel.cu") == "box_iou_rotated");
  CHECK(file_op("pcdet/ops/iou3d_nms/src/iou3d_nms_kernel.cu") == "box_iou_rotated");
  CHECK(file_op("pcdet/datasets/kitti/kitti_object_eval_python/rotate_iou.py") == "box_iou_rotated");
  CHECK(op_of("nms_normal_kernel") == "nms");  // a kernel's own name still comes before its file's
  CHECK(op_of("boxes_overlap_kernel") == "");  // axis-aligned or rotated: its file says which
  CHECK(op_of("bev_pool_v2_kernel") == "bev_pool");
  CHECK(op_of("bev_pool_grad_kernel") == "bev_pool");
  CHECK(op_of("voxel_pooling_train_forward_kernel") == "bev_pool");
  CHECK(op_of("points_in_boxes_batch_kernel") == "roi_pool3d");
  CHECK(op_of("roiaware_maxpool3d_backward") == "roi_pool3d");
  CHECK(file_op("pcdet/ops/roipoint_pool3d/src/roipoint_pool3d_kernel.cu") == "roi_pool3d");
  CHECK(op_of("assign_score_withk_forward_kernel") == "paconv_assign_score");
  CHECK(op_of("knnquery_cuda_kernel") == "knn");
  CHECK(op_of("furthestsampling_cuda_kernel") == "furthest_point_sample");
  CHECK(op_of("deformable_attn_cuda_kernel_forward") == "ms_deform_attn");
  CHECK(file_op("ppdet/modeling/transformers/ext_op/ms_deformable_attn_op.cu") == "ms_deform_attn");
  CHECK(op_of("_triton_qwen2vl_mrope") == "rotary_embedding");
  // Near misses: voxelization is its own op, and a deformable convolution is not deformable attention.
  CHECK(op_of("hard_voxelize_kernel") == "voxelization");
  CHECK(op_of("deformable_im2col_gpu_kernel") == "deform_conv");
  CHECK(op_of("interpolation_forward_cuda_kernel") == "");
}
