// TunableOp's state for torch_cuda (torch.cuda.tunable, stock's at::cuda::tunable::
// TuningContext): the switches, the results of tuning keyed by operator and parameter
// signature, the validators that tie a results file to the software that wrote it, and the
// CSV files stock reads and writes. Plain host C++: the GEMM side is tunable_gemm.cpp.
//
// As in stock CUDA builds, a GEMM has one solution, "Default" (cuBLAS's own choice, here
// the plan's executor): tuning times it and records it, so results files, the untuned-GEMM
// log and offline tuning (torch.cuda.tunable.tune_gemm_in_file) work as stock's do.
//
// Settings start from stock's environment variables, read on first use:
//   PYTORCH_TUNABLEOP_ENABLED (0), PYTORCH_TUNABLEOP_TUNING (1),
//   PYTORCH_TUNABLEOP_RECORD_UNTUNED (0), PYTORCH_TUNABLEOP_FILENAME
//   (tunableop_results.csv), PYTORCH_TUNABLEOP_UNTUNED_FILENAME (tunableop_untuned.csv),
//   PYTORCH_TUNABLEOP_MAX_TUNING_DURATION_MS (30), PYTORCH_TUNABLEOP_MAX_TUNING_ITERATIONS
//   (100), PYTORCH_TUNABLEOP_ROTATING_BUFFER_SIZE (MiB; -1: the L2 cache's size).
// The default file names get the device ordinal before ".csv" (tunableop_results0.csv).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace torch_cuda::blas::tunable {

struct Result {
  std::string solution;  // "Default"
  double time_ms = 0.0;
};

// (operator signature, parameter signature, solution, average time in ms)
using ResultRow = std::tuple<std::string, std::string, std::string, double>;

class TuningContext {
 public:
  // The process's context. `validators` (name, value) are fixed by the first call.
  static TuningContext& get();

  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void enable_tuning(bool on) { tuning_ = on; }
  bool tuning_enabled() const { return tuning_; }
  void enable_record_untuned(bool on) { record_untuned_ = on; }
  bool record_untuned_enabled() const { return record_untuned_; }
  void set_max_tuning_duration_ms(int milliseconds) { max_duration_ms_ = milliseconds; }
  int max_tuning_duration_ms() const { return max_duration_ms_; }
  void set_max_tuning_iterations(int iterations) { max_iterations_ = iterations; }
  int max_tuning_iterations() const { return max_iterations_; }
  // MiB; negative: the L2 cache's size (resolved by the caller, which knows the device).
  void set_rotating_buffer_size_mb(int mebibytes) { rotating_buffer_mb_ = mebibytes; }
  int rotating_buffer_size_mb() const { return rotating_buffer_mb_; }
  void set_numerical_check(bool on, double atol, double rtol);
  std::tuple<bool, double, double> numerical_check() const;

  // The results file; with insert_device_ordinal, `device` goes before the extension.
  void set_filename(const std::string& filename, bool insert_device_ordinal, int device);
  std::string filename(int device) const;
  std::string untuned_filename(int device) const;

  void set_validators(std::vector<std::pair<std::string, std::string>> validators);
  std::vector<std::pair<std::string, std::string>> validators() const;

  std::optional<Result> find(const std::string& op, const std::string& params) const;
  void add(const std::string& op, const std::string& params, Result result);
  std::vector<ResultRow> results() const;

  // Loads a results file; false (with `problem` set) when it cannot be read or its
  // validators differ from this process's (stock rejects such a file whole).
  bool read_file(const std::string& path, std::string* problem);
  // Writes validators and results; throws std::runtime_error naming the file on failure.
  void write_file(const std::string& path) const;
  // At exit: writes the results file when tuning found something new since it was read.
  void write_file_if_changed(int device);
  // Appends "op,params" to the untuned file, once per pair (offline tuning's input).
  void record_untuned(const std::string& op, const std::string& params, int device);

 private:
  TuningContext();

  std::atomic<bool> enabled_;
  std::atomic<bool> tuning_;
  std::atomic<bool> record_untuned_;
  std::atomic<int> max_duration_ms_;
  std::atomic<int> max_iterations_;
  std::atomic<int> rotating_buffer_mb_;
  mutable std::mutex mutex_;  // guards the members below
  bool numerical_check_ = false;
  double atol_ = 1e-5;
  double rtol_ = 1e-5;
  std::string filename_;  // empty: the default with the device ordinal
  std::string untuned_filename_;
  std::vector<std::pair<std::string, std::string>> validators_;
  std::map<std::string, std::map<std::string, Result>> results_;
  std::set<std::pair<std::string, std::string>> untuned_written_;  // (file, line)
  bool changed_ = false;
};

}  // namespace torch_cuda::blas::tunable
