#!/usr/bin/env bash
# Runs the GPU checks of tools/gpu_kit.py's kit on a machine with an NVIDIA GPU, from the
# root of a checkout of this repository (the Python tests are read from it):
#
#   tools/gpu_kit_run.sh KIT_DIR OUT_DIR [CHECK ...]
#   GPU_KIT_SKIP="CHECK ..." tools/gpu_kit_run.sh KIT_DIR OUT_DIR
#
# KIT_DIR holds kit.tar.zst or its parts (kit.tar.zst.part00, ...), and a zstd binary
# where the machine has none. Each check writes OUT_DIR/<check>.log; OUT_DIR/summary.txt
# gets a line per check with its exit status and seconds. The checks (all, or the CHECKs
# named, less those in $GPU_KIT_SKIP) run in three phases: the torch-free test binaries
# and the demo one after another, then the Python suites on the real variant side by side
# (one process per file), then alone the benchmarks and the checks that fill the device's
# memory or slow it down (OOM, compute-sanitizer). Every check has a time limit, so a hang
# costs its limit and is reported as exit 124.
#
# cuBLAS, cuFFT and cuSOLVER are the machine's own libcublas.so.13, libcufft.so.12 and
# libcusolver.so.12 with its libcusparse.so.12 and libnvJitLink.so.13 (found under
# $CUBLAS_DIR / $CUFFT_DIR / $CUSOLVER_DIR / $CUSPARSE_DIR / $NVJITLINK_DIR, /usr, /opt or
# its Python's site-packages, where a stock CUDA torch's nvidia wheels put them), NVRTC its
# libnvrtc.so.13 (under $NVRTC_DIR likewise, which cuDNN's frontend calls), NCCL its
# libnccl.so.2 (likewise under $NCCL_DIR; NCCL
# 2's ABI is stable across releases), cuDNN its libcudnn.so.9 with the engine libraries
# beside it (under $CUDNN_DIR, or where a stock CUDA torch's nvidia-cudnn wheel puts them).
# $GPU_KIT_WORK (default KIT_DIR/unpacked) is where the kit is unpacked; an unpacked kit
# there is reused.
set -u

kit_dir=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
work=${GPU_KIT_WORK:-$kit_dir/unpacked}
mkdir -p "$out"
summary=$out/summary.txt

unpack() {
  [ -f "$work/unpacked" ] && return 0
  rm -rf "$work" && mkdir -p "$work/kit" "$work/py" || return 1
  local zstd_tool=zstd
  command -v zstd > /dev/null || zstd_tool=$kit_dir/zstd
  cat "$kit_dir"/kit.tar.zst* | "$zstd_tool" -dc | tar -x -C "$work/kit" || return 1
  for deb in "$work"/kit/debs/*.deb; do dpkg-deb -x "$deb" "$work/py" || return 1; done
  # Debian's interpreter reads <prefix>/lib/python3/dist-packages, .pth files included.
  mkdir -p "$work/py/usr/lib/python3" && rm -rf "$work/py/usr/lib/python3/dist-packages"
  mv "$work/kit/site" "$work/py/usr/lib/python3/dist-packages" || return 1
  # Bytecode, as an installed Python has it (Debian's postinst compiles the standard
  # library, pip an installed wheel): the checks run with PYTHONDONTWRITEBYTECODE, and
  # without it every process compiled its imports again (the activation's import-time test
  # measured 41 ms on an H100 against its 20 ms bound; with bytecode it passes). Sources for
  # other Python versions fail to compile and are left as they are.
  PYTHONHOME=$work/py/usr "$work/py/usr/bin/python3.11" -m compileall -q -j 0 \
    "$work/py/usr/lib/python3.11" "$work/py/usr/lib/python3/dist-packages" > /dev/null 2>&1
  touch "$work/unpacked"
}

if ! unpack; then
  echo "unpack FAILED" | tee -a "$summary"
  exit 1
fi
site=$work/py/usr/lib/python3/dist-packages
bin=$work/kit/bin
# library_dir SONAME VARIABLE DIR...: the directory of the machine's SONAME (under $VARIABLE
# or the DIRs); exits, saying so, where there is none.
library_dir() {
  local soname=$1 variable=$2 found
  shift 2
  found=$(find ${!variable:-} "$@" -name "$soname" 2> /dev/null | head -n 1)
  if [ -z "$found" ]; then
    echo "no $soname on this machine: set $variable" | tee -a "$summary" >&2
    exit 1
  fi
  dirname "$found"
}
python_sites=$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2> /dev/null)
cublas_dir=$(library_dir libcublas.so.13 CUBLAS_DIR /usr /opt $python_sites) || exit 1
cufft_dir=$(library_dir libcufft.so.12 CUFFT_DIR /usr /opt $python_sites) || exit 1
cusolver_dir=$(library_dir libcusolver.so.12 CUSOLVER_DIR /usr /opt $python_sites) || exit 1
cusparse_dir=$(library_dir libcusparse.so.12 CUSPARSE_DIR /usr /opt $python_sites) || exit 1
nvjitlink_dir=$(library_dir libnvJitLink.so.13 NVJITLINK_DIR /usr /opt $python_sites) || exit 1
cusolver_path=$cusolver_dir:$cusparse_dir:$nvjitlink_dir:$cublas_dir
nvrtc_dir=$(library_dir libnvrtc.so.13 NVRTC_DIR /usr /opt $python_sites) || exit 1
nccl_dir=$(library_dir libnccl.so.2 NCCL_DIR /usr /opt $python_sites) || exit 1
cudnn_dir=$(library_dir libcudnn.so.9 CUDNN_DIR /usr /opt $python_sites) || exit 1
# Where _CUDAC.so's RUNPATH looks for them in an installed wheel ($ORIGIN/nvidia/cu13/lib,
# $ORIGIN/nvidia/nccl/lib, $ORIGIN/nvidia/cudnn/lib): links to each library, as they may
# lie in different places, and to cuDNN's directory, whose engine libraries libcudnn.so.9
# loads from beside it.
mkdir -p "$site/nvidia/cu13/lib" "$site/nvidia/nccl" "$site/nvidia/cudnn"
for library in "$cublas_dir"/libcublas.so.13 "$cublas_dir"/libcublasLt.so.13 "$cufft_dir"/libcufft.so.12 \
  "$cusolver_dir"/libcusolver.so.12 "$cusparse_dir"/libcusparse.so.12 "$nvjitlink_dir"/libnvJitLink.so.13 \
  "$nvrtc_dir"/libnvrtc.so.13; do
  ln -sfn "$library" "$site/nvidia/cu13/lib/"
done
ln -sfn "$nccl_dir" "$site/nvidia/nccl/lib"
ln -sfn "$cudnn_dir" "$site/nvidia/cudnn/lib"

export PYTHONHOME=$work/py/usr PYTHONNOUSERSITE=1 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export PYTHONFAULTHANDLER=1
python=$work/py/usr/bin/python3.11
sanitize="compute-sanitizer --error-exitcode 1 --print-limit 20"

# name -> "seconds|command" (run from the checkout's root with bash -c).
declare -A checks=(
  [env]="30|nvidia-smi; $python -c 'import torch; print(torch.__version__, torch.cuda.device_count(), torch.cuda.get_device_name(), torch.cuda.get_device_capability())'"
  [cuda_runtime_test]="30|$bin/cuda_runtime_test"
  [cuda_engine_test]="60|LD_LIBRARY_PATH=$bin $bin/cuda_engine_test"
  [cuda_sort_test]="60|LD_LIBRARY_PATH=$bin $bin/cuda_sort_test"
  [cublas_test]="30|LD_LIBRARY_PATH=$cublas_dir $bin/cublas_test"
  [cufft_test]="60|LD_LIBRARY_PATH=$cufft_dir $bin/cufft_test"
  [cusolver_test]="60|LD_LIBRARY_PATH=$cusolver_path $bin/cusolver_test"
  # cuDNN's engines may load cuBLASLt, which they look for beside themselves first.
  [cudnn_test]="90|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_test"
  [cudnn_batch_norm_test]="60|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_batch_norm_test"
  [cudnn_grid_sampler_test]="60|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_grid_sampler_test"
  [cudnn_rnn_test]="60|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_rnn_test"
  [cudnn_ctc_loss_test]="60|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_ctc_loss_test"
  [cudnn_attention_test]="90|LD_LIBRARY_PATH=$cudnn_dir:$cublas_dir:$nvrtc_dir $bin/cudnn_attention_test"
  [cuda_ipc_test]="30|$bin/cuda_ipc_test"
  [cuda_vm_test]="30|$bin/cuda_vm_test"
  [nccl_test]="60|GPU_KIT_MACHINE_NCCL=1 LD_LIBRARY_PATH=$nccl_dir $bin/nccl_test"
  # From a copy: beside the script, the checkout's torch_cuda/ would shadow the wheel's.
  [demo]="90|mkdir -p $work/demo && cp third_device/torch_cuda/demo*.py $work/demo && PYTHONPATH=examples/training $python $work/demo/demo.py"
  [sanitize_engine]="90|LD_LIBRARY_PATH=$bin $sanitize $bin/cuda_engine_test"
  [sanitize_cublas]="60|LD_LIBRARY_PATH=$cublas_dir $sanitize $bin/cublas_test"
  [bench_training]="90|PYTHONPATH=examples/training $python benchmarks/runtime/training_step.py"
  [bench_op_overhead]="90|$python benchmarks/runtime/op_overhead.py --device cuda"
  [bench_convolution]="90|$python benchmarks/runtime/convolution.py"
  [bench_attention]="90|$python benchmarks/runtime/attention.py"
  [bench_fft]="90|$python benchmarks/runtime/fft.py"
  [bench_linalg]="120|$python benchmarks/runtime/linalg.py"
  # The machine's own python3 and torch, where that is a stock CUDA build: the baseline.
  [bench_training_stock]="90|env -u PYTHONHOME PYTHONPATH=examples/training python3 benchmarks/runtime/training_step.py"
  [bench_op_overhead_stock]="90|env -u PYTHONHOME python3 benchmarks/runtime/op_overhead.py --device cuda"
  [bench_convolution_stock]="90|env -u PYTHONHOME python3 benchmarks/runtime/convolution.py"
  [bench_attention_stock]="90|env -u PYTHONHOME python3 benchmarks/runtime/attention.py"
  [bench_fft_stock]="90|env -u PYTHONHOME python3 benchmarks/runtime/fft.py"
  [bench_linalg_stock]="120|env -u PYTHONHOME python3 benchmarks/runtime/linalg.py"
)
for test in tests/contract/test_*.py; do
  name=$(basename "$test" .py)
  checks[contract_${name#test_}]="200|CONTRACT_BACKEND=torch_cuda PYTHONPATH=tests/contract $python $test"
done
# The CUDA-key suites as their Bazel targets set them up, less the simulator's settings:
# they are written for the simulated variant's two devices, so on one GPU their two-device
# cases fail with "invalid device ordinal".
declare -A cuda_key_env=([training_steps]="TORCH_CUDA_FALLBACK=error" [sanitizer]="TORCH_CUDA_SANITIZER=1")
for test in tests/cuda_key/test_*.py; do
  name=$(basename "$test" .py)
  name=${name#test_}
  checks[cuda_key_$name]="200|${cuda_key_env[$name]:-} PYTHONPATH=tests/cuda_key:examples/training $python $test"
done
for shard in 0 1 2 3; do
  checks[conformance_$shard]="200|TEST_TOTAL_SHARDS=4 TEST_SHARD_INDEX=$shard PYTHONPATH=tests/conformance $python tests/conformance/op_conformance.py --backend torch_cuda --device cuda --out $out/conformance_$shard.md"
done

run_check() {
  local name=$1 limit=${checks[$1]%%|*} command=${checks[$1]#*|} start=$SECONDS status
  # SIGABRT at the limit: Python's fault handler (PYTHONFAULTHANDLER) then writes every
  # thread's stack to the log, which shows where a check that ran out of time was.
  timeout --signal=ABRT --kill-after=5 "$limit" bash -c "$command" > "$out/$name.log" 2>&1
  status=$?
  printf '%-32s exit %3d  %4d s\n' "$name" "$status" $((SECONDS - start)) >> "$summary"
}

# One after another: what everything else stands on. Alone: the benchmarks, then what
# fills the device's memory or slows every kernel down.
first=(env cuda_runtime_test cuda_engine_test cuda_sort_test cublas_test cufft_test cusolver_test cudnn_test cudnn_batch_norm_test
  cudnn_grid_sampler_test cudnn_rnn_test cudnn_ctc_loss_test cudnn_attention_test nccl_test demo)
alone=(bench_training bench_training_stock bench_convolution bench_convolution_stock bench_attention
  bench_attention_stock bench_fft bench_fft_stock bench_linalg bench_linalg_stock bench_op_overhead
  bench_op_overhead_stock contract_oom cuda_key_allocator_stress cuda_key_memory_tools sanitize_engine
  sanitize_cublas)
side_by_side=()
for name in $(printf '%s\n' "${!checks[@]}" | sort); do
  [[ " ${first[*]} ${alone[*]} " == *" $name "* ]] || side_by_side+=("$name")
done
# The CHECKs named on the command line, else every one.
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${!checks[@]}")
read -r -a skipped <<< "${GPU_KIT_SKIP:-}"
for name in "${selected[@]}" "${skipped[@]}"; do
  [ -n "${checks[$name]:-}" ] || { echo "unknown check: $name" | tee -a "$summary"; exit 2; }
done
kept=()
for name in "${selected[@]}"; do [[ " ${skipped[*]} " == *" $name "* ]] || kept+=("$name"); done
selected=("${kept[@]}")
wanted() { [[ " ${selected[*]} " == *" $1 "* ]]; }

for name in "${first[@]}"; do wanted "$name" && run_check "$name"; done
for name in "${side_by_side[@]}"; do wanted "$name" && run_check "$name" & done
wait
for name in "${alone[@]}"; do wanted "$name" && run_check "$name"; done
cat "$summary"
