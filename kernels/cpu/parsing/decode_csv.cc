// DecodeCSV: CSV records (strings) to one tensor per column, as TensorFlow parses them.
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/parsing/decode_csv.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// Splits one record into fields. With quotes, a field that starts with '"' runs to the next
// lone '"' (a doubled quote inside is one quote) and must be followed by the delimiter or the
// end. Returns false with a message on a malformed record.
bool split_record(const std::string& record, char delim, bool quotes, std::vector<std::string>* fields,
                  std::string* why) {
  fields->clear();
  size_t i = 0;
  const size_t n = record.size();
  while (true) {
    std::string field;
    if (quotes && i < n && record[i] == '"') {
      ++i;
      while (true) {
        if (i >= n) {
          *why = "Quoted field has to end with quote followed by delim or end";
          return false;
        }
        if (record[i] == '"') {
          if (i + 1 < n && record[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(record[i++]);
      }
      if (i < n && record[i] != delim) {
        *why = "Quoted field has to end with quote followed by delim or end";
        return false;
      }
    } else {
      while (i < n && record[i] != delim) {
        if (quotes && record[i] == '"') {
          *why = "Unquoted fields cannot have quotes inside";
          return false;
        }
        field.push_back(record[i++]);
      }
    }
    fields->push_back(std::move(field));
    if (i >= n) return true;
    ++i;  // the delimiter: a field follows, even an empty one at the end
  }
}

template <typename T>
bool parse_number(const std::string& s, T* out) {
  if (s.empty()) return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_same_v<T, float>) {
    *out = std::strtof(begin, &end);
  } else if constexpr (std::is_same_v<T, double>) {
    *out = std::strtod(begin, &end);
  } else {
    const long long v = std::strtoll(begin, &end, 10);
    if (errno == ERANGE || v < static_cast<long long>(std::numeric_limits<T>::min()) ||
        v > static_cast<long long>(std::numeric_limits<T>::max())) {
      return false;
    }
    *out = static_cast<T>(v);
  }
  // Surrounding blanks are allowed, as TensorFlow's strings::safe_strto* allow them.
  while (*end == ' ' || *end == '\t') ++end;
  return end != begin && *end == '\0';
}

const char* type_name(DType dt) {
  switch (dt) {
    case DType::kFloat:
      return "float";
    case DType::kDouble:
      return "double";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    default:
      return "string";
  }
}

template <typename T>
Status fill_column(ops::DecodeCSVArgs& a, int col, const std::vector<std::vector<std::string>>& fields,
                   const std::vector<bool>& missing, const std::string& name) {
  Tensor& out = a.ctx.output(col);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, a.records.shape(), &out));
  T* dst = out.data<T>();
  const Tensor& def = a.record_defaults[col];
  for (size_t r = 0; r < fields.size(); ++r) {
    if (missing[r]) {
      if (def.num_elements() == 0) return a.ctx.error("Field ", col, " is required but missing in record ", r, "!");
      dst[r] = def.data<T>()[0];
    } else if (!parse_number(fields[r][static_cast<size_t>(col)], &dst[r])) {
      return a.ctx.error("Field ", col, " in record ", r, " is not a valid ", name, ": ",
                         fields[r][static_cast<size_t>(col)]);
    }
  }
  return Status::OK();
}

Status DecodeCSVCpu(ops::DecodeCSVArgs& a) {
  const int num_cols = a.ctx.num_outputs();
  if (a.field_delim.size() != 1) return a.ctx.error("field_delim should be only 1 char, got '", a.field_delim, "'");
  for (int c = 0; c < num_cols; ++c) {
    if (a.record_defaults[c].num_elements() > 1 || a.record_defaults[c].rank() > 1) {
      return a.ctx.error("Shape of a default must be a length-0 or length-1 vector, or a scalar.");
    }
  }
  const auto& select = a.select_cols;
  if (!select.empty()) {
    if (static_cast<int>(select.size()) != num_cols) {
      return a.ctx.error("select_cols has ", select.size(), " columns but there are ", num_cols, " outputs");
    }
    for (size_t i = 0; i < select.size(); ++i) {
      if (select[i] < 0 || (i > 0 && select[i] <= select[i - 1])) {
        return a.ctx.error("select_cols must be non-negative and strictly increasing");
      }
    }
  }
  const std::vector<std::string>& records = *a.records.strings();
  std::vector<std::vector<std::string>> kept(records.size());
  std::vector<std::vector<bool>> missing(static_cast<size_t>(num_cols), std::vector<bool>(records.size()));
  std::vector<std::string> fields;
  std::string why;
  for (size_t r = 0; r < records.size(); ++r) {
    if (!split_record(records[r], a.field_delim[0], a.use_quote_delim, &fields, &why)) {
      return a.ctx.error(why, " in record ", r, ": ", records[r]);
    }
    if (select.empty()) {
      if (static_cast<int>(fields.size()) != num_cols) {
        return a.ctx.error("Expect ", num_cols, " fields but have ", fields.size(), " in record ", r);
      }
      kept[r] = std::move(fields);
    } else {
      if (static_cast<int64_t>(fields.size()) <= select.back()) {
        return a.ctx.error("Expect ", select.back() + 1, " fields but have ", fields.size(), " in record ", r);
      }
      for (int64_t c : select) kept[r].push_back(fields[static_cast<size_t>(c)]);
    }
    for (int c = 0; c < num_cols; ++c) {
      const std::string& f = kept[r][static_cast<size_t>(c)];
      missing[static_cast<size_t>(c)][r] = f.empty() || f == a.na_value;
    }
  }
  for (int c = 0; c < num_cols; ++c) {
    const DType dt = a.OUT_TYPE[static_cast<size_t>(c)];
    if (a.record_defaults[c].dtype() != dt) {
      return a.ctx.error("record_defaults[", c, "] has dtype ", dtype_name(a.record_defaults[c].dtype()),
                         " but OUT_TYPE[", c, "] is ", dtype_name(dt));
    }
    const auto& miss = missing[static_cast<size_t>(c)];
    switch (dt) {
      case DType::kFloat:
        OPF_RETURN_IF_ERROR(fill_column<float>(a, c, kept, miss, type_name(dt)));
        break;
      case DType::kDouble:
        OPF_RETURN_IF_ERROR(fill_column<double>(a, c, kept, miss, type_name(dt)));
        break;
      case DType::kInt32:
        OPF_RETURN_IF_ERROR(fill_column<int32_t>(a, c, kept, miss, type_name(dt)));
        break;
      case DType::kInt64:
        OPF_RETURN_IF_ERROR(fill_column<int64_t>(a, c, kept, miss, type_name(dt)));
        break;
      case DType::kString: {
        std::vector<std::string> values(records.size());
        const Tensor& def = a.record_defaults[c];
        for (size_t r = 0; r < records.size(); ++r) {
          if (!miss[r]) {
            values[r] = kept[r][static_cast<size_t>(c)];
          } else if (def.num_elements() == 0) {
            return a.ctx.error("Field ", c, " is required but missing in record ", r, "!");
          } else {
            values[r] = (*def.strings())[0];
          }
        }
        OPF_RETURN_IF_ERROR(Tensor::FromStrings(a.records.shape(), std::move(values), &a.ctx.output(c)));
        break;
      }
      default:
        return a.ctx.error("unsupported output type ", dtype_name(dt));
    }
  }
  return Status::OK();
}

}  // namespace

// The kernel makes its outputs itself (one dtype per column, strings among them).
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeCSV, CPU, DecodeCSVCpu)

}  // namespace opforge
