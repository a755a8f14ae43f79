// SerializeTensor and ParseTensor (a tensor as TensorFlow's TensorProto bytes, through the one
// codec in tensor_proto.h) and DecodeCompressed (zlib / gzip streams, with zlib: the library
// behind the TFRecord readers' Python zlib module; built with OPFORGE_HAVE_ZLIB where CMake
// finds it). As TensorFlow's, a stream zlib rejects is a DataLoss error and a stream cut
// short gives the bytes it holds.
#include <string>
#include <type_traits>
#include <vector>

#ifdef OPFORGE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "cpu/alloc_guard.h"
#include "cpu/parsing/tensor_proto.h"
#include "opforge/ops/parsing/decode_compressed.h"
#include "opforge/ops/parsing/parse_tensor.h"
#include "opforge/ops/parsing/serialize_tensor.h"

namespace opforge {
namespace {

// TensorFlow's SerializeTensorOp: strings one string_val each (AsProtoField), every other
// dtype in tensor_content (AsProtoTensorContent).
template <typename T>
Status SerializeTensorCpu(ops::SerializeTensorArgs& a) {
  const auto strings =
      std::is_same_v<T, StringTag> ? tensor_proto::Strings::kStringVal : tensor_proto::Strings::kTensorContent;
  return cpu::guarded("SerializeTensor", [&] {
    return Tensor::FromStrings(Shape{}, {tensor_proto::encode(a.tensor, strings)}, &a.ctx.output(0));
  });
}

template <typename T>
Status ParseTensorCpu(ops::ParseTensorArgs& a) {
  if (a.serialized.rank() != 0) {
    return a.ctx.error("Expected `serialized` to be a scalar, got shape: ", a.serialized.shape().to_string());
  }
  return tensor_proto::to_tensor("ParseTensor", (*a.serialized.strings())[0], DTypeOf<T>::value, &a.ctx.output(0));
}

#ifdef OPFORGE_HAVE_ZLIB
// The whole decompressed stream; window_bits says the framing (zlib: 15, gzip: 16 + 15).
Status inflate_all(const std::string& in, int window_bits, size_t index, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return errors::ResourceExhausted("DecodeCompressed: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());  // the strings of a tensor stay below 4 GiB
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out->append(buf, sizeof buf - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      // All the input read and the stream not ended: TensorFlow's ZlibInputStream takes the
      // end of the input as the end of the data, so a truncated stream gives what it holds.
      rc = Z_STREAM_END;
    }
  }
  if (rc == Z_BUF_ERROR && z.total_in == in.size()) rc = Z_STREAM_END;  // an empty or cut-short header
  const std::string why = z.msg != nullptr ? z.msg : "inflate() failed with error " + std::to_string(rc);
  inflateEnd(&z);
  if (rc == Z_MEM_ERROR) return errors::ResourceExhausted("DecodeCompressed: not enough memory");
  if (rc != Z_STREAM_END) {
    return Status(Code::kDataLoss,
                  errors::StrCat("DecodeCompressed: bytes[", index, "] is not a valid compressed stream: ", why));
  }
  return Status::OK();
}
#endif

Status DecodeCompressedCpu(ops::DecodeCompressedArgs& a) {
  const std::string& type = a.compression_type;
  if (type != "" && type != "ZLIB" && type != "GZIP") {
    return a.ctx.error("Only ZLIB, GZIP or no compression (\"\") is supported, got compression_type \"", type, "\"");
  }
  const std::vector<std::string>& in = *a.bytes.strings();
  if (type.empty()) return Tensor::FromStrings(a.bytes.shape(), in, &a.ctx.output(0));
#ifdef OPFORGE_HAVE_ZLIB
  std::vector<std::string> out(in.size());
  const int window_bits = type == "GZIP" ? 16 + MAX_WBITS : MAX_WBITS;
  OPF_RETURN_IF_ERROR(cpu::guarded("DecodeCompressed", [&]() -> Status {
    for (size_t k = 0; k < in.size(); ++k) OPF_RETURN_IF_ERROR(inflate_all(in[k], window_bits, k, &out[k]));
    return Status::OK();
  }));
  return Tensor::FromStrings(a.bytes.shape(), std::move(out), &a.ctx.output(0));
#else
  return errors::Unimplemented("DecodeCompressed: opforge was built without zlib (install zlib1g-dev and rebuild)");
#endif
}

}  // namespace

#define OPF_PROTO_DTYPES bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag
OPFORGE_REGISTER_FORWARDING_KERNEL(SerializeTensor, CPU, SerializeTensorCpu, OPF_PROTO_DTYPES)
OPFORGE_REGISTER_FORWARDING_KERNEL(ParseTensor, CPU, ParseTensorCpu, OPF_PROTO_DTYPES)
#undef OPF_PROTO_DTYPES
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeCompressed, CPU, DecodeCompressedCpu)

}  // namespace opforge
