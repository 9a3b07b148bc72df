#include "third_device/torch_cuda/torch_cuda/csrc/aten/blas/tuning_context.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace torch_cuda::blas::tunable {

namespace {

constexpr const char* kDefaultFilename = "tunableop_results.csv";
constexpr const char* kDefaultUntunedFilename = "tunableop_untuned.csv";

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

bool env_flag(const char* name, bool fallback) {
  const std::optional<std::string> value = env(name);
  return value ? *value == "1" : fallback;
}

int env_int(const char* name, int fallback) {
  const std::optional<std::string> value = env(name);
  if (!value) return fallback;
  try {
    return std::stoi(*value);
  } catch (const std::exception&) {
    return fallback;  // as stock's c10::utils::get_env parsing: a bad value keeps the default
  }
}

// "results.csv", 1 -> "results1.csv" (before the extension, or at the end without one).
std::string with_ordinal(const std::string& filename, int device) {
  const std::size_t dot = filename.rfind('.');
  const std::size_t slash = filename.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return filename + std::to_string(device);
  }
  return filename.substr(0, dot) + std::to_string(device) + filename.substr(dot);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
  return fields;
}

}  // namespace

TuningContext& TuningContext::get() {
  static auto* context = new TuningContext();  // leaked: used from atexit handlers
  return *context;
}

TuningContext::TuningContext()
    : enabled_(env_flag("PYTORCH_TUNABLEOP_ENABLED", false)),
      tuning_(env_flag("PYTORCH_TUNABLEOP_TUNING", true)),
      record_untuned_(env_flag("PYTORCH_TUNABLEOP_RECORD_UNTUNED", false)),
      max_duration_ms_(env_int("PYTORCH_TUNABLEOP_MAX_TUNING_DURATION_MS", 30)),
      max_iterations_(env_int("PYTORCH_TUNABLEOP_MAX_TUNING_ITERATIONS", 100)),
      rotating_buffer_mb_(env_int("PYTORCH_TUNABLEOP_ROTATING_BUFFER_SIZE", -1)),
      filename_(env("PYTORCH_TUNABLEOP_FILENAME").value_or("")),
      untuned_filename_(env("PYTORCH_TUNABLEOP_UNTUNED_FILENAME").value_or("")) {}

void TuningContext::set_numerical_check(bool on, double atol, double rtol) {
  std::lock_guard<std::mutex> lock(mutex_);
  numerical_check_ = on;
  atol_ = atol;
  rtol_ = rtol;
}
std::tuple<bool, double, double> TuningContext::numerical_check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {numerical_check_, atol_, rtol_};
}

void TuningContext::set_filename(const std::string& filename, bool insert_device_ordinal, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  filename_ = insert_device_ordinal ? with_ordinal(filename, device) : filename;
}
std::string TuningContext::filename(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return filename_.empty() ? with_ordinal(kDefaultFilename, device) : filename_;
}
std::string TuningContext::untuned_filename(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return untuned_filename_.empty() ? with_ordinal(kDefaultUntunedFilename, device) : untuned_filename_;
}

void TuningContext::set_validators(std::vector<std::pair<std::string, std::string>> validators) {
  std::lock_guard<std::mutex> lock(mutex_);
  validators_ = std::move(validators);
}
std::vector<std::pair<std::string, std::string>> TuningContext::validators() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return validators_;
}

std::optional<Result> TuningContext::find(const std::string& op, const std::string& params) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto by_op = results_.find(op);
  if (by_op == results_.end()) return std::nullopt;
  auto found = by_op->second.find(params);
  if (found == by_op->second.end()) return std::nullopt;
  return found->second;
}

void TuningContext::add(const std::string& op, const std::string& params, Result result) {
  std::lock_guard<std::mutex> lock(mutex_);
  results_[op][params] = std::move(result);
  changed_ = true;
}

std::vector<ResultRow> TuningContext::results() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ResultRow> rows;
  for (const auto& [op, by_params] : results_) {
    for (const auto& [params, result] : by_params) rows.emplace_back(op, params, result.solution, result.time_ms);
  }
  return rows;
}

bool TuningContext::read_file(const std::string& path, std::string* problem) {
  std::ifstream file(path);
  if (!file) {
    *problem = "cannot open " + path;
    return false;
  }
  const auto expected = validators();
  std::map<std::string, std::string> found_validators;
  std::vector<ResultRow> rows;
  for (std::string line; std::getline(file, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> fields = split_csv(line);
    if (fields[0] == "Validator" && fields.size() == 3) {
      found_validators[fields[1]] = fields[2];
    } else if (fields.size() >= 3) {
      double time_ms = 0.0;
      if (fields.size() >= 4) {
        try {
          time_ms = std::stod(fields[3]);
        } catch (const std::exception&) {
          *problem = path + ": bad time in line '" + line + "'";
          return false;
        }
      }
      rows.emplace_back(fields[0], fields[1], fields[2], time_ms);
    } else {
      *problem = path + ": malformed line '" + line + "'";
      return false;
    }
  }
  for (const auto& [name, value] : expected) {
    auto it = found_validators.find(name);
    if (it == found_validators.end() || it->second != value) {
      *problem = path + " was written for " + name + " " +
                 (it == found_validators.end() ? std::string("(none)") : it->second) + ", this process has " +
                 value + ": its results are not used";
      return false;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [op, params, solution, time_ms] : rows) results_[op][params] = Result{solution, time_ms};
  return true;
}

void TuningContext::write_file(const std::string& path) const {
  std::ofstream file(path, std::ios::trunc);
  if (!file) throw std::runtime_error("TunableOp: cannot write the results file " + path);
  for (const auto& [name, value] : validators()) file << "Validator," << name << "," << value << "\n";
  for (const auto& [op, params, solution, time_ms] : results()) {
    file << op << "," << params << "," << solution << "," << time_ms << "\n";
  }
  if (!file) throw std::runtime_error("TunableOp: writing the results file " + path + " failed");
}

void TuningContext::write_file_if_changed(int device) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!changed_ || !enabled() || !tuning_enabled()) return;
    changed_ = false;
  }
  write_file(filename(device));
}

void TuningContext::record_untuned(const std::string& op, const std::string& params, int device) {
  const std::string path = untuned_filename(device);
  const std::string line = op + "," + params;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!untuned_written_.emplace(path, line).second) return;
  std::ofstream file(path, std::ios::app);
  if (!file) throw std::runtime_error("TunableOp: cannot append to the untuned file " + path);
  file << line << "\n";
}

}  // namespace torch_cuda::blas::tunable
