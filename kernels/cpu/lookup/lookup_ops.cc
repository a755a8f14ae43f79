// Lookup-table ops (TensorFlow's names): the table ops make a LookupTable in the running
// Session's resources (eagerly, one owned by its handle alone); the LookupTable* and
// InitializeTable* ops find it through their table_handle input.
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cpu/lookup/lookup_table.h"
#include "opforge/ops/lookup_ops.h"

namespace opforge {
namespace {

using lookup::LookupTable;
using Kind = LookupTable::Kind;

// The store's name of a Session table: [container/]shared_name, else the node's name.
std::string table_name(const KernelContext& ctx, const std::string& container, const std::string& shared_name) {
  std::string name = shared_name;
  ExecEnv* env = ctx.env();
  if (name.empty() && env && env->node_name) name = *env->node_name;
  if (name.empty() || container.empty()) return name;
  return container + "/" + name;
}

// The table called name in the running Session (made by make on first use), or eagerly a new
// one owned by its handle; its handle goes to *handle.
Status session_table(KernelContext& ctx, const char* op, const std::string& name, DType key_dtype, DType value_dtype,
                     const std::function<Status(std::shared_ptr<LookupTable>*)>& make, Tensor* handle) {
  std::shared_ptr<LookupTable> table;
  ExecEnv* env = ctx.env();
  if (!env || !env->resources || name.empty()) {
    OPF_RETURN_IF_ERROR(make(&table));
  } else {
    Status s = env->resources->lookup_or_create_resource<LookupTable>(name, make, &table);
    if (!s.ok()) return errors::InvalidArgument(op, ": ", s.message());
    if (table->key_dtype() != key_dtype || table->value_dtype() != value_dtype) {
      return errors::InvalidArgument(op, ": the table '", name, "' maps ", dtype_name(table->key_dtype()), " to ",
                                     dtype_name(table->value_dtype()), ", not ", dtype_name(key_dtype), " to ",
                                     dtype_name(value_dtype));
    }
  }
  *handle = resource_tensor(name, std::move(table));
  return Status::OK();
}

template <class Args>
Status MakeTable(Args& a, Kind kind, const Shape& value_shape) {
  const std::string name = table_name(a.ctx, a.container, a.shared_name);
  auto make = [&](std::shared_ptr<LookupTable>* t) {
    return LookupTable::Make(a.kOpName, kind, a.key_dtype, a.value_dtype, value_shape, t);
  };
  return session_table(a.ctx, a.kOpName, name, a.key_dtype, a.value_dtype, make, &a.table_handle);
}

Status HashTableV2Cpu(ops::HashTableV2Args& a) { return MakeTable(a, Kind::kStatic, Shape()); }
Status MutableHashTableV2Cpu(ops::MutableHashTableV2Args& a) { return MakeTable(a, Kind::kMutable, Shape()); }
Status MutableHashTableOfTensorsV2Cpu(ops::MutableHashTableOfTensorsV2Args& a) {
  return MakeTable(a, Kind::kMutable, a.value_shape);
}

template <class T>
Status MutableDenseHashTableV2Cpu(ops::MutableDenseHashTableV2Args& a) {
  if (a.initial_num_buckets <= 0 || (a.initial_num_buckets & (a.initial_num_buckets - 1)) != 0) {
    return a.ctx.error("Number of buckets must be at least 1 and a power of 2, got: ", a.initial_num_buckets);
  }
  if (!(a.max_load_factor > 0 && a.max_load_factor < 1)) {
    return a.ctx.error("max_load_factor must be between 0 and 1, got: ", a.max_load_factor);
  }
  const std::string name = table_name(a.ctx, a.container, a.shared_name);
  auto make = [&](std::shared_ptr<LookupTable>* t) {
    OPF_RETURN_IF_ERROR(LookupTable::Make(a.kOpName, Kind::kDense, a.key_dtype, a.value_dtype, a.value_shape, t));
    return (*t)->SetReservedKeys(a.kOpName, a.empty_key, a.deleted_key);
  };
  return session_table(a.ctx, a.kOpName, name, a.key_dtype, a.value_dtype, make, &a.table_handle);
}

Status AnonymousHashTableCpu(ops::AnonymousHashTableArgs& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(LookupTable::Make(a.kOpName, Kind::kStatic, a.key_dtype, a.value_dtype, Shape(), &t));
  a.table_handle = resource_tensor("", std::move(t));
  return Status::OK();
}

Status AnonymousMutableHashTableCpu(ops::AnonymousMutableHashTableArgs& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(LookupTable::Make(a.kOpName, Kind::kMutable, a.key_dtype, a.value_dtype, Shape(), &t));
  a.table_handle = resource_tensor("", std::move(t));
  return Status::OK();
}

template <class T>
Status LookupTableFindV2Cpu(ops::LookupTableFindV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  return t->Find(a.kOpName, a.keys, a.default_value, &a.values);
}

template <class T>
Status LookupTableInsertV2Cpu(ops::LookupTableInsertV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  return t->Insert(a.kOpName, a.keys, a.values);
}

template <class T>
Status LookupTableRemoveV2Cpu(ops::LookupTableRemoveV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  return t->Remove(a.kOpName, a.keys);
}

template <class T>
Status LookupTableImportV2Cpu(ops::LookupTableImportV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  return t->Import(a.kOpName, a.keys, a.values);
}

template <class T>
Status InitializeTableV2Cpu(ops::InitializeTableV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  return t->Initialize(a.kOpName, a.keys, a.values);
}

Status LookupTableSizeV2Cpu(ops::LookupTableSizeV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape(), &a.size));
  a.size.data<int64_t>()[0] = t->Size();
  return Status::OK();
}

template <class T>
Status LookupTableExportV2Cpu(ops::LookupTableExportV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  if (a.Tkeys != t->key_dtype() || a.Tvalues != t->value_dtype()) {
    return a.ctx.error("the table maps ", dtype_name(t->key_dtype()), " to ", dtype_name(t->value_dtype()), ", not ",
                       dtype_name(a.Tkeys), " to ", dtype_name(a.Tvalues));
  }
  return t->Export(a.kOpName, &a.keys, &a.values);
}

// ---- InitializeTableFromTextFileV2 ----------------------------------------------------------

constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

// Parses token as dtype into element i of out (TensorFlow's safe_strto*: surrounding spaces allowed).
Status parse_field(const std::string& token, DType dtype, int64_t line, std::vector<int64_t>* ints,
                   std::vector<double>* floats, std::vector<std::string>* strings) {
  if (dtype == DType::kString) {
    strings->push_back(token);
    return Status::OK();
  }
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  const bool integer = dtype == DType::kInt32 || dtype == DType::kInt64;
  long long iv = 0;
  double fv = 0;
  if (integer) {
    iv = std::strtoll(begin, &end, 10);
  } else if (dtype == DType::kFloat) {
    fv = std::strtof(begin, &end);  // rounded once, as TensorFlow's safe_strtof
  } else {
    fv = std::strtod(begin, &end);
  }
  bool ok = end != begin && errno != ERANGE;
  while (ok && *end == ' ') ++end;
  ok = ok && *end == '\0';
  if (dtype == DType::kInt32) ok = ok && iv >= INT32_MIN && iv <= INT32_MAX;
  if (!ok) {
    return errors::InvalidArgument("Field ", token, " in line ", line, " is not a valid ", dtype_name(dtype), ".");
  }
  if (integer) {
    ints->push_back(iv);
  } else {
    floats->push_back(fv);
  }
  return Status::OK();
}

// One column of the entries read from a file, made a tensor of dtype at the end.
struct Column {
  DType dtype;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;

  Status Add(const std::string& line, const std::vector<std::string>& tokens, int64_t index, int64_t line_number,
             int64_t offset) {
    if (index == kLineNumber) {
      ints.push_back(line_number + offset);
      return Status::OK();
    }
    const std::string& token = index == kWholeLine ? line : tokens[static_cast<size_t>(index)];
    return parse_field(token, dtype, line_number, &ints, &floats, &strings);
  }
  Status ToTensor(Tensor* out) {
    const auto n = static_cast<int64_t>(dtype == DType::kString                               ? strings.size()
                                        : (dtype == DType::kFloat || dtype == DType::kDouble) ? floats.size()
                                                                                              : ints.size());
    if (dtype == DType::kString) return Tensor::FromStrings(Shape({n}), std::move(strings), out);
    OPF_RETURN_IF_ERROR(Tensor::Allocate(dtype, Shape({n}), out));
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      if (dtype == DType::kInt32) out->data<int32_t>()[i] = static_cast<int32_t>(ints[k]);
      if (dtype == DType::kInt64) out->data<int64_t>()[i] = ints[k];
      if (dtype == DType::kFloat) out->data<float>()[i] = static_cast<float>(floats[k]);
      if (dtype == DType::kDouble) out->data<double>()[i] = floats[k];
    }
    return Status::OK();
  }
};

Status check_index(const char* op, const char* what, int64_t index, DType dtype) {
  if (index == kLineNumber && dtype != DType::kInt64) {
    return errors::InvalidArgument(op, ": ", what, " index for line number requires table ",
                                   what == std::string("Key") ? "key" : "value", " dtype of int64, got ",
                                   dtype_name(dtype));
  }
  const bool parsable = dtype == DType::kString || dtype == DType::kInt32 || dtype == DType::kInt64 ||
                        dtype == DType::kFloat || dtype == DType::kDouble;
  if (index != kLineNumber && !parsable) {
    return errors::InvalidArgument(op, ": ", what, " fields cannot be read as ", dtype_name(dtype));
  }
  return Status::OK();
}

Status InitializeTableFromTextFileV2Cpu(ops::InitializeTableFromTextFileV2Args& a) {
  std::shared_ptr<LookupTable> t;
  OPF_RETURN_IF_ERROR(resource_from_tensor(a.kOpName, a.table_handle, &t));
  if (a.filename.dtype() != DType::kString || a.filename.shape().rank() != 0) {
    return a.ctx.error("filename should be a single string, but got ", a.filename.shape().to_string());
  }
  const std::string& path = a.filename.strings()->front();
  if (path.empty()) return a.ctx.error("filename cannot be empty.");
  if (a.delimiter.size() != 1) return a.ctx.error("delimiter should be only 1 char");
  OPF_RETURN_IF_ERROR(check_index(a.kOpName, "Key", a.key_index, t->key_dtype()));
  OPF_RETURN_IF_ERROR(check_index(a.kOpName, "Value", a.value_index, t->value_dtype()));
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return Status(errno == ENOENT ? Code::kNotFound : Code::kInvalidArgument,
                  std::string(a.kOpName) + ": " + path + "; " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) return a.ctx.error(path, " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return a.ctx.error("cannot open ", path);
  if (t->initialized()) return Status::OK();  // as TensorFlow: a file table initializes once

  const char delim = a.delimiter[0];
  const auto columns = static_cast<size_t>(std::max(a.key_index, a.value_index) + 1);
  Column keys{t->key_dtype(), {}, {}, {}};
  Column values{t->value_dtype(), {}, {}, {}};
  int64_t line_number = 0;
  std::string line;
  while (a.vocab_size == -1 || line_number < a.vocab_size) {
    if (!std::getline(in, line)) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      return a.ctx.error("Invalid content in ", path, ": empty line found at position ",
                         static_cast<int64_t>(in.tellg()), ".");
    }
    std::vector<std::string> tokens;
    if (columns > 0) {
      std::stringstream fields(line);
      std::string token;
      size_t start = 0;
      for (size_t pos = line.find(delim); pos != std::string::npos; pos = line.find(delim, start)) {
        tokens.push_back(line.substr(start, pos - start));
        start = pos + 1;
      }
      tokens.push_back(line.substr(start));
      if (tokens.size() < columns) {
        return a.ctx.error("Invalid number of columns in ", path, " line ", line_number, " (", line, ") : expected ",
                           columns, " got ", tokens.size());
      }
    }
    Status s = keys.Add(line, tokens, a.key_index, line_number, a.offset);
    if (s.ok()) s = values.Add(line, tokens, a.value_index, line_number, a.offset);
    if (!s.ok()) return errors::InvalidArgument(a.kOpName, ": ", s.message());
    ++line_number;
  }
  if (a.vocab_size != -1 && line_number != a.vocab_size) {
    return a.ctx.error("Invalid vocab_size in ", path, ": expected ", a.vocab_size, " but got ", line_number);
  }
  Tensor key_tensor, value_tensor;
  OPF_RETURN_IF_ERROR(keys.ToTensor(&key_tensor));
  OPF_RETURN_IF_ERROR(values.ToTensor(&value_tensor));
  return t->Initialize(a.kOpName, key_tensor, value_tensor);
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(HashTableV2, CPU, HashTableV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MutableHashTableV2, CPU, MutableHashTableV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(MutableHashTableOfTensorsV2, CPU, MutableHashTableOfTensorsV2Cpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(MutableDenseHashTableV2, CPU, MutableDenseHashTableV2Cpu, StringTag, int64_t,
                                   int32_t)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(AnonymousHashTable, CPU, AnonymousHashTableCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(AnonymousMutableHashTable, CPU, AnonymousMutableHashTableCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(LookupTableFindV2, CPU, LookupTableFindV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_KERNEL(LookupTableInsertV2, CPU, LookupTableInsertV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_KERNEL(LookupTableRemoveV2, CPU, LookupTableRemoveV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_KERNEL(LookupTableImportV2, CPU, LookupTableImportV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_KERNEL(InitializeTableV2, CPU, InitializeTableV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(LookupTableExportV2, CPU, LookupTableExportV2Cpu, StringTag, int64_t, int32_t)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(LookupTableSizeV2, CPU, LookupTableSizeV2Cpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(InitializeTableFromTextFileV2, CPU, InitializeTableFromTextFileV2Cpu)

}  // namespace opforge
