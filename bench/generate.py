#!/usr/bin/env python3
"""Writes a deterministic synthetic ML repository for tpulint's benchmark.

The code is written like real PyTorch/JAX projects and torch CUDA extensions (models, training
loops, data pipelines, kernels launched inside AT_DISPATCH, pybind11 bindings), with TPU blockers
sprinkled at realistic rates, so that every check has work to do. The same arguments always give
the same bytes.

usage: generate.py OUT_DIR --python-lines N [--cxx-files M] [--seed S]
"""
import argparse
import os
import random

PY_HEADER = '''"""{doc}"""
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
'''

PY_BLOCKS = [
    # A model block.
    '''

class {name}Block(nn.Module):
    def __init__(self, dim={dim}, heads={heads}, dropout=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, mask=None):
        h = self.norm1(x)
        h, _ = self.attn(h, h, h, key_padding_mask=mask)
        x = x + h
        x = x + self.mlp(self.norm2(x))
        return x
''',
    # A training loop with host syncs and device strings.
    '''

def train_{name}(model, loader, optimizer, epochs={epochs}, device="cuda"):
    model = model.to(device)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            with torch.cuda.amp.autocast():
                logits = model(x)
                loss = F.cross_entropy(logits, y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if step % 100 == 0:
                print(f"epoch {{epoch}} step {{step}} loss {{loss.item():.4f}}")
    return model
''',
    # Post-processing with data-dependent shapes.
    '''

@torch.no_grad()
def postprocess_{name}(scores, boxes, threshold={threshold}):
    keep = torch.nonzero(scores > threshold).squeeze(1)
    labels = torch.unique(boxes[keep, 4].long())
    picked = boxes[scores > threshold]
    out = []
    for label in labels:
        sel = picked[picked[:, 4] == label]
        out.append(sel[:{topk}])
    return torch.cat(out) if out else boxes.new_zeros((0, 5))
''',
    # A dataset and a loader.
    '''

class {name}Dataset(Dataset):
    def __init__(self, root, size={size}):
        self.root = root
        self.files = sorted(os.listdir(root))[:size]

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        arr = np.load(os.path.join(self.root, self.files[index]))
        x = torch.from_numpy(arr["x"]).float()
        y = int(arr["y"])
        return x, y


def make_{lname}_loader(root, batch_size={batch}):
    return DataLoader({name}Dataset(root), batch_size=batch_size, shuffle=True, num_workers={workers})
''',
    # Plain numerical helpers (clean code).
    '''

def cosine_schedule_{lname}(step, total={total}, warmup={warmup}, base_lr=3e-4):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * base_lr * (1 + math.cos(math.pi * progress))


def count_parameters_{lname}(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def ema_update_{lname}(target, source, decay=0.999):
    with torch.no_grad():
        for t, s in zip(target.parameters(), source.parameters()):
            t.mul_(decay).add_(s, alpha=1 - decay)
''',
]

JAX_FILE = '''"""JAX model {name}."""
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax


class {name}(nn.Module):
    features: int = {dim}

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.features)(x)
        x = nn.gelu(x)
        return nn.Dense(self.features)(x)


@jax.jit
def train_step_{lname}(params, opt_state, batch, tx):
    def loss_fn(p):
        logits = {name}().apply(p, batch["x"])
        return optax.softmax_cross_entropy_with_integer_labels(logits, batch["y"]).mean()
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss
'''

CU_FILE = '''// {name}: a fused CUDA op for a PyTorch extension.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

namespace {{

constexpr int kThreads = {threads};

template <typename scalar_t>
__device__ __forceinline__ scalar_t warp_sum(scalar_t v) {{
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}}

template <typename scalar_t>
__global__ void {lname}_forward_kernel(const scalar_t* __restrict__ input, const scalar_t* __restrict__ weight,
                                       scalar_t* __restrict__ output, int rows, int cols) {{
  __shared__ scalar_t partial[kThreads / 32];
  int row = blockIdx.x;
  scalar_t acc = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += input[row * cols + c] * weight[c];
  acc = warp_sum(acc);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {{
    acc = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : scalar_t(0);
    acc = warp_sum(acc);
    if (threadIdx.x == 0) output[row] = acc;
  }}
}}

template <typename scalar_t>
__global__ void {lname}_backward_kernel(const scalar_t* __restrict__ grad, const scalar_t* __restrict__ weight,
                                        scalar_t* __restrict__ grad_input, int rows, int cols) {{
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= rows * cols) return;
  grad_input[index] = grad[index / cols] * weight[index % cols];
}}

}}  // namespace

torch::Tensor {lname}_forward(const torch::Tensor& input, const torch::Tensor& weight) {{
  const at::cuda::CUDAGuard guard(input.device());
  auto output = torch::empty({{input.size(0)}}, input.options());
  const int rows = input.size(0), cols = input.size(1);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "{lname}_forward", [&] {{
    {lname}_forward_kernel<scalar_t><<<rows, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
        input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), output.data_ptr<scalar_t>(), rows, cols);
  }});
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return output;
}}

torch::Tensor {lname}_backward(const torch::Tensor& grad, const torch::Tensor& weight, int64_t rows) {{
  auto grad_input = torch::empty({{rows, weight.size(0)}}, grad.options());
  const int cols = weight.size(0);
  const int total = rows * cols;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(grad.scalar_type(), "{lname}_backward", [&] {{
    {lname}_backward_kernel<scalar_t><<<(total + kThreads - 1) / kThreads, kThreads>>>(
        grad.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), grad_input.data_ptr<scalar_t>(), rows, cols);
  }});
  return grad_input;
}}
'''

CPP_BINDING = '''// Python bindings for the {n} fused ops.
#include <torch/extension.h>

{decls}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {{
{defs}
}}
'''

NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Sigma", "Omega", "Kappa", "Theta", "Lambda", "Zeta", "Rho", "Tau"]


def python_file(rng, index):
    name = f"{rng.choice(NAMES)}{index}"
    parts = [PY_HEADER.format(doc=f"Synthetic module {index} of the tpulint benchmark.")]
    for b in range(rng.randint(3, 7)):
        template = rng.choice(PY_BLOCKS)
        parts.append(template.format(
            name=f"{name}V{b}", lname=f"{name.lower()}_v{b}", dim=rng.choice([128, 256, 512]),
            heads=rng.choice([4, 8]), epochs=rng.randint(1, 50), threshold=rng.choice([0.3, 0.5, 0.7]),
            topk=rng.choice([10, 50, 100]), size=rng.randint(100, 10000), batch=rng.choice([16, 32, 64]),
            workers=rng.choice([0, 2, 4, 8]), total=rng.randint(1000, 100000), warmup=rng.randint(10, 1000)))
    return "".join(parts)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--python-lines", type=int, required=True)
    p.add_argument("--cxx-files", type=int, default=0)
    p.add_argument("--seed", type=int, default=20261130)
    args = p.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)

    lines = 0
    index = 0
    while lines < args.python_lines:
        package = f"py/pkg{index // 50:03d}"
        os.makedirs(os.path.join(args.out, package), exist_ok=True)
        if index % 10 == 9:
            text = JAX_FILE.format(name=f"Jax{index}", lname=f"jax{index}", dim=rng.choice([64, 128]))
        else:
            text = python_file(rng, index)
        with open(os.path.join(args.out, package, f"module_{index:05d}.py"), "w") as f:
            f.write(text)
        lines += text.count("\n")
        index += 1

    per_binding = 10
    for start in range(0, args.cxx_files, per_binding):
        group = range(start, min(start + per_binding, args.cxx_files))
        folder = os.path.join(args.out, "csrc", f"ext{start // per_binding:03d}")
        os.makedirs(folder, exist_ok=True)
        decls, defs = [], []
        for i in group:
            lname = f"op{i:04d}"
            with open(os.path.join(folder, f"{lname}_kernel.cu"), "w") as f:
                f.write(CU_FILE.format(name=f"Op{i}", lname=lname, threads=rng.choice([128, 256, 512])))
            decls.append(f"torch::Tensor {lname}_forward(const torch::Tensor& input, const torch::Tensor& weight);")
            defs.append(f'  m.def("{lname}_forward", &{lname}_forward, "{lname} forward (CUDA)");')
        with open(os.path.join(folder, "bindings.cpp"), "w") as f:
            f.write(CPP_BINDING.format(n=len(decls), decls="\n".join(decls), defs="\n".join(defs)))
    print(f"{args.out}: {index} Python files ({lines} lines), {args.cxx_files} CUDA files")


if __name__ == "__main__":
    main()
