// The shape-function catalogue. Every function works on partially known shapes: unknown
// dims (-1) and unknown ranks propagate instead of failing, so graphs can be built before
// all sizes are known. Eager execution always sees fully defined shapes.
#include "opforge/shape_fns.h"

#include "opforge/library.h"  // registrations staged while an op library loads

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

namespace opforge {

Status broadcast_shapes(const Shape& a, const Shape& b, Shape* out, const std::string& op) {
  if (a.unknown_rank() || b.unknown_rank()) {
    *out = Shape::UnknownRank();
    return Status::OK();
  }
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    int64_t d;
    if (da == 1)
      d = db;
    else if (db == 1)
      d = da;
    else if (da < 0)
      d = db;  // unknown vs n: must be n (or 1, which broadcasts to n)
    else if (db < 0)
      d = da;
    else if (da == db)
      d = da;
    else
      return errors::InvalidArgument(op, ": incompatible shapes for broadcasting: ", a.to_string(), " and ",
                                     b.to_string());
    dims[static_cast<size_t>(i)] = d;
  }
  *out = Shape(std::move(dims));
  return Status::OK();
}

namespace shape_fns {

Status normalize_axes(const std::string& op, const std::vector<int64_t>& axes, int rank, std::vector<int>* out) {
  out->clear();
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument(op, ": axis ", a, " is out of range for a tensor of rank ", rank, " (expected [",
                                     -rank, ", ", rank, "))");
    }
    out->push_back(static_cast<int>(a < 0 ? a + rank : a));
  }
  return Status::OK();
}

Status unchanged(ShapeContext& c, int x) {
  int n = c.num_inputs(x);
  Shape s = n > 0 ? c.input_shape(x, 0) : Shape::UnknownRank();
  for (int i = 1; i < n; ++i) {
    const Shape& o = c.input_shape(x, i);
    if (s.unknown_rank()) {
      s = o;
      continue;
    }
    if (o.unknown_rank()) continue;
    if (o.rank() != s.rank()) {
      return c.error("all inputs must have the same shape, got ", s.to_string(), " and ", o.to_string());
    }
    for (int d = 0; d < s.rank(); ++d) {
      int64_t a = s.dim(d), b = o.dim(d);
      if (a >= 0 && b >= 0 && a != b) {
        return c.error("all inputs must have the same shape, got ", s.to_string(), " and ", o.to_string());
      }
      if (a < 0) s.mutable_dims()[static_cast<size_t>(d)] = b;
    }
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, s);
  return Status::OK();
}

Status broadcast(ShapeContext& c, int x, int y) {
  Shape out;
  OPF_RETURN_IF_ERROR(broadcast_shapes(c.input_shape(x), c.input_shape(y), &out, c.op().name));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return Status::OK();
}

Status matmul(ShapeContext& c, int a, int b, int transpose_a, int transpose_b) {
  const Shape& sa = c.input_shape(a);
  const Shape& sb = c.input_shape(b);
  if ((!sa.unknown_rank() && sa.rank() != 2) || (!sb.unknown_rank() && sb.rank() != 2)) {
    return c.error("inputs must be matrices (rank 2), got shapes ", sa.to_string(), " and ", sb.to_string());
  }
  bool ta = c.attr(transpose_a).b, tb = c.attr(transpose_b).b;
  int64_t m = sa.unknown_rank() ? -1 : sa.dim(ta ? 1 : 0);
  int64_t ka = sa.unknown_rank() ? -1 : sa.dim(ta ? 0 : 1);
  int64_t kb = sb.unknown_rank() ? -1 : sb.dim(tb ? 1 : 0);
  int64_t n = sb.unknown_rank() ? -1 : sb.dim(tb ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return c.error("inner dimensions do not match: a is ", sa.to_string(), ta ? " (transposed)" : "", ", b is ",
                   sb.to_string(), tb ? " (transposed)" : "");
  }
  c.set_output(0, Shape({m, n}));
  return Status::OK();
}

Status reduce(ShapeContext& c, int input, int axis, int keep_dims) {
  const Shape& in = c.input_shape(input);
  bool keep = c.attr(keep_dims).b;
  const Tensor* axis_value = c.input_value(axis);
  const Shape& axis_shape = c.input_shape(axis);
  if (!axis_shape.unknown_rank() && axis_shape.rank() > 1) {
    return c.error("reduction axes must be a scalar or vector, got shape ", axis_shape.to_string());
  }
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (axis_value == nullptr) {  // axes unknown: rank known only when dims are kept
    c.set_output(0, keep ? Shape(std::vector<int64_t>(in.dims().size(), -1)) : Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> axes;
  OPF_RETURN_IF_ERROR(read_int_vector(*axis_value, &axes));
  std::vector<int> norm;
  OPF_RETURN_IF_ERROR(normalize_axes(c.op().name, axes, in.rank(), &norm));
  std::vector<bool> reduced(static_cast<size_t>(in.rank()), false);
  for (int a : norm) reduced[static_cast<size_t>(a)] = true;
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[static_cast<size_t>(d)])
      dims.push_back(in.dim(d));
    else if (keep)
      dims.push_back(1);
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

Status scalar(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape());
  return Status::OK();
}

Status from_attr(ShapeContext& c, int shape) {
  c.set_output(0, c.attr(shape).shape);
  return Status::OK();
}

// The shape a shape-valued input (a dims vector) gives as far as graph construction knows it:
// its partially known value, else as many unknown dims as the vector's static length, else an
// unknown rank.
Shape partial_shape_input(const ShapeContext& c, int arg) {
  if (const Shape* p = c.input_partial_value(arg)) return *p;
  const Shape& s = c.input_shape(arg);
  if (s.unknown_rank() || s.rank() != 1 || s.dim(0) < 0) return Shape::UnknownRank();
  return Shape(std::vector<int64_t>(static_cast<size_t>(s.dim(0)), -1));
}

namespace {
// Reads a shape-valued input (dims vector) when known; sets *known = false otherwise.
Status shape_from_value(ShapeContext& c, int arg, bool allow_minus_one, std::vector<int64_t>* dims, bool* known) {
  const Tensor* v = c.input_value(arg);
  const Shape& s = c.input_shape(arg);
  if (!s.unknown_rank() && s.rank() > 1) {
    return c.error("shape must be a vector, got a tensor of shape ", s.to_string());
  }
  *known = v != nullptr;
  if (!*known) return Status::OK();
  OPF_RETURN_IF_ERROR(read_int_vector(*v, dims));
  for (int64_t d : *dims) {
    if (d < 0 && !(allow_minus_one && d == -1)) {
      return c.error("dimensions must be non-negative, got ", d);
    }
  }
  return Status::OK();
}
}  // namespace

Status reshape(ShapeContext& c, int tensor, int shape) {
  std::vector<int64_t> dims;
  bool known;
  OPF_RETURN_IF_ERROR(shape_from_value(c, shape, true, &dims, &known));
  if (!known) {
    Shape out = partial_shape_input(c, shape);
    // One unknown dim and the rest known: it is what the input's element count leaves.
    const int64_t n = c.input_shape(tensor).num_elements();
    if (!out.unknown_rank() && n >= 0) {
      int unknown = -1, count = 0;
      int64_t product = 1;
      bool overflow = false;
      for (int i = 0; i < out.rank(); ++i) {
        if (out.dim(i) < 0) {
          unknown = i;
          ++count;
        } else {
          overflow = overflow || __builtin_mul_overflow(product, out.dim(i), &product);
        }
      }
      if (!overflow && count == 1 && product > 0 && n % product == 0) {
        std::vector<int64_t> d = out.dims();
        d[static_cast<size_t>(unknown)] = n / product;
        out = Shape(std::move(d));
      }
    }
    c.set_output(0, std::move(out));
    return Status::OK();
  }
  // TensorFlow's rule: the running product of the dims, left to right, must not overflow (a 0
  // makes it 0 from there on: [2, 0, 2**62] is fine, [2**32, 2**32, 0] is not).
  int64_t running = 1;
  for (int64_t d : dims) {
    if (d != -1 && __builtin_mul_overflow(running, d, &running)) {
      return c.error("new shape ", Shape(dims).to_string(), " has too many elements");
    }
  }
  // product: of the known dims (no overflow, by the check above); nonzero: of the non-zero
  // known dims, capped just above kMaxElements (it divides the input's count to solve a -1).
  constexpr int64_t kMaxElements = int64_t{1} << 48;
  int unknown = -1;
  int64_t product = 1, nonzero = 1;
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) return c.error("only one dimension of the new shape may be -1");
      unknown = static_cast<int>(i);
      continue;
    }
    product *= dims[i];
    if (dims[i] == 0) {
      has_zero = true;
    } else {
      nonzero = nonzero > kMaxElements / dims[i] ? kMaxElements + 1 : nonzero * dims[i];
    }
  }
  // A shape with a 0 holds nothing however large its other dims (TensorFlow too), unless a -1
  // would have to be inferred from their product.
  if (nonzero > kMaxElements && (!has_zero || unknown >= 0)) {
    return c.error("new shape ", Shape(dims).to_string(), " is too large");
  }
  const Shape& in = c.input_shape(tensor);
  int64_t n = in.num_elements();
  if (n >= 0) {
    if (unknown >= 0) {
      // TensorFlow's rule: when the new shape has a 0, the input's 0-sized dims are left out
      // of its element count, so the -1 still gets a size (a [0, 3] tensor reshaped to
      // [-1, 0] is [3, 0]; to [-1, 0, 2], [1, 0, 2]); the element counts must then agree.
      int64_t counted = 1;
      bool input_zero_dropped = false;
      for (int64_t d : in.dims()) {
        if (d > 0 || !has_zero) {
          counted *= d;
        } else {
          input_zero_dropped = true;
        }
      }
      const int64_t missing = counted / nonzero;
      if (!input_zero_dropped && nonzero * missing != counted) {
        return c.error("cannot reshape a tensor with ", n, " elements to ", Shape(dims).to_string());
      }
      dims[static_cast<size_t>(unknown)] = missing;
      if (missing * product != n && !(product == 0 && n == 0)) {
        return c.error("cannot reshape a tensor with ", n, " elements to ", Shape(dims).to_string());
      }
    } else if (product != n) {
      return c.error("cannot reshape a tensor with ", n, " elements to shape ", Shape(dims).to_string(), " (", product,
                     " elements)");
    }
  } else if (unknown >= 0 && !has_zero && !in.unknown_rank()) {
    // Some input dims unknown but one of them 0: nothing to hold, so the -1 is 0.
    for (int64_t d : in.dims()) {
      if (d == 0) dims[static_cast<size_t>(unknown)] = 0;
    }
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

Status transpose(ShapeContext& c, int x, int perm) {
  const Shape& in = c.input_shape(x);
  const Tensor* p = c.input_value(perm);
  if (p == nullptr || in.unknown_rank()) {
    // Unknown values: the rank is x's, or else perm's length.
    const Shape& ps = c.input_shape(perm);
    int rank = in.unknown_rank() ? -1 : in.rank();
    if (rank < 0 && p != nullptr) rank = static_cast<int>(p->num_elements());
    if (rank < 0 && !ps.unknown_rank() && ps.rank() == 1 && ps.dim(0) >= 0) rank = static_cast<int>(ps.dim(0));
    c.set_output(0, rank < 0 ? Shape::UnknownRank() : Shape(std::vector<int64_t>(static_cast<size_t>(rank), -1)));
    return Status::OK();
  }
  std::vector<int64_t> perm_v;
  OPF_RETURN_IF_ERROR(read_int_vector(*p, &perm_v));
  if (static_cast<int>(perm_v.size()) != in.rank()) {
    return c.error("perm has ", perm_v.size(), " entries but the input has rank ", in.rank());
  }
  std::vector<bool> seen(perm_v.size(), false);
  std::vector<int64_t> dims;
  for (int64_t a : perm_v) {
    if (a < 0) a += in.rank();  // TensorFlow counts a negative entry from the end
    if (a < 0 || a >= in.rank() || seen[static_cast<size_t>(a)]) {
      return c.error("perm must be a permutation of [0, ", in.rank(), "), got ",
                     AttrValue::ListInt(perm_v).to_string(AttrType::kListInt));
    }
    seen[static_cast<size_t>(a)] = true;
    dims.push_back(in.dim(static_cast<int>(a)));
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

Status fill(ShapeContext& c, int dims_arg) {
  std::vector<int64_t> dims;
  bool known;
  OPF_RETURN_IF_ERROR(shape_from_value(c, dims_arg, false, &dims, &known));
  if (!known) {
    c.set_output(0, partial_shape_input(c, dims_arg));
    return Status::OK();
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

Status tensor_attr(ShapeContext& c, int value) {
  c.set_output(0, c.attr(value).tensor.shape());
  return Status::OK();
}

Status shape_vector(ShapeContext& c, int input) {
  const Shape& s = c.input_shape(input);
  c.set_output(0, Shape({s.unknown_rank() ? -1 : static_cast<int64_t>(s.rank())}));
  return Status::OK();
}

namespace {

// Range's element count as TensorFlow computes it. Integers: ceil(|limit - start| / |delta|),
// exact in 64-bit unsigned arithmetic (never through double, which loses integers above 2^53).
// Floats: ceil(|(limit - start) / delta|) with every operation rounded to the element type
// (float16/bfloat16 through float, rounded back after each step), so Range(0, 0.3, 0.1) has 3
// elements in float32 but 4 in float16, as in TensorFlow.
template <typename T>
Status range_size(ShapeContext& c, T start, T limit, T delta, int64_t* n) {
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  if constexpr (std::is_integral_v<T>) {
    if (delta == 0) return c.error("requires delta != 0");
    if (delta > 0 && start > limit) return c.error("requires start <= limit when delta > 0: ", +start, "/", +limit);
    if (delta < 0 && start < limit) return c.error("requires start >= limit when delta < 0: ", +start, "/", +limit);
    const uint64_t a = static_cast<uint64_t>(static_cast<int64_t>(start));
    const uint64_t b = static_cast<uint64_t>(static_cast<int64_t>(limit));
    const uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(delta));
    const uint64_t span = delta > 0 ? b - a : a - b;  // exact: the true difference fits in uint64
    const uint64_t step = delta > 0 ? d : uint64_t{0} - d;
    const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
    if (count > static_cast<uint64_t>(kMaxElements)) return c.error("range of ", count, " elements is too large");
    *n = static_cast<int64_t>(count);
  } else {
    using C = std::conditional_t<std::is_floating_point_v<T>, T, float>;
    const C a = static_cast<C>(start), b = static_cast<C>(limit), d = static_cast<C>(delta);
    if (d == 0) return c.error("requires delta != 0");
    if (d > 0 && a > b) return c.error("requires start <= limit when delta > 0: ", a, "/", b);
    if (d < 0 && a < b) return c.error("requires start >= limit when delta < 0: ", a, "/", b);
    const C diff = static_cast<C>(static_cast<T>(b - a));
    const C q = static_cast<C>(static_cast<T>(diff / d));
    const double count = std::ceil(std::fabs(static_cast<double>(q)));
    if (!(count <= static_cast<double>(kMaxElements))) {
      return c.error("requires ((limit - start) / delta) to be a finite size of at most ", kMaxElements,
                     " elements, got ", count);
    }
    *n = static_cast<int64_t>(count);
  }
  return Status::OK();
}

}  // namespace

Status range(ShapeContext& c, int start, int limit, int delta) {
  for (int arg : {start, limit, delta}) {
    const Shape& s = c.input_shape(arg);
    if (!s.unknown_rank() && s.rank() != 0) {
      return c.error(c.op().inputs[static_cast<size_t>(arg)].name, " must be a scalar, got shape ", s.to_string());
    }
  }
  const Tensor* a = c.input_value(start);
  const Tensor* b = c.input_value(limit);
  const Tensor* d = c.input_value(delta);
  if (!a || !b || !d) {
    c.set_output(0, Shape({-1}));
    return Status::OK();
  }
  int64_t n = 0;
  Status st = Status::OK();
  const bool known = visit_dtype(a->dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      st = c.error("unsupported dtype bool");
    } else {
      st = range_size<T>(c, a->data<T>()[0], b->data<T>()[0], d->data<T>()[0], &n);
    }
  });
  if (!known) return c.error("unsupported dtype");
  OPF_RETURN_IF_ERROR(st);
  c.set_output(0, Shape({n}));
  return Status::OK();
}

Status vector(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape({-1}));
  return Status::OK();
}

Status none(ShapeContext& c) { return Status::OK(); }

namespace {
std::mutex custom_mu;
std::unordered_map<std::string, ShapeFn>& customs() {
  static auto* m = new std::unordered_map<std::string, ShapeFn>();
  return *m;
}
}  // namespace

void register_custom(const std::string& op, ShapeFn fn) {
  if (RegistrationStage* stage = current_stage()) {  // an op library is loading
    stage->shape_fns.emplace_back(op, std::move(fn));
    return;
  }
  std::lock_guard<std::mutex> lock(custom_mu);
  customs()[op] = std::move(fn);
}

ShapeFn find_custom(const std::string& op) {
  std::lock_guard<std::mutex> lock(custom_mu);
  auto it = customs().find(op);
  return it == customs().end() ? ShapeFn() : it->second;
}

std::vector<std::string> custom_names() {
  std::lock_guard<std::mutex> lock(custom_mu);
  std::vector<std::string> names;
  for (const auto& kv : customs()) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

Status call_custom(const std::string& op, ShapeContext& c) {
  ShapeFn fn = find_custom(op);
  if (!fn)
    return errors::Unimplemented(op, ": the opdef says shape_fn \"custom\" but no custom shape function is registered");
  return fn(c);
}

}  // namespace shape_fns
}  // namespace opforge
