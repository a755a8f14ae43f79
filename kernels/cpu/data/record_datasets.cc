// Datasets that read files: TFRecordDataset (TensorFlow's record framing: length, masked
// CRC-32C of the length, data, masked CRC-32C of the data), TextLineDataset and
// FixedLengthRecordDatasetV2, each over uncompressed, ZLIB or GZIP files (zlib, where the
// build found it). A damaged file is a DataLossError naming the file and the offset.
#include <cstdio>
#include <cstring>

#include "cpu/data/dataset_util.h"
#include "opforge/ops/data_ops.h"
#include "src/crc32c.h"

#ifdef OPFORGE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace opforge {
namespace {

// A file's bytes, read in order, inflated when compressed.
class InputStream {
 public:
  ~InputStream() {
#ifdef OPFORGE_HAVE_ZLIB
    if (zinit_) inflateEnd(&z_);
#endif
    if (f_) std::fclose(f_);
  }
  Status Open(const std::string& op, const std::string& path, const std::string& compression, size_t buffer) {
    path_ = path;
    op_ = op;
    if (compression != "" && compression != "ZLIB" && compression != "GZIP") {
      return errors::InvalidArgument(op, ": compression_type must be '', 'ZLIB' or 'GZIP', got '", compression, "'");
    }
    compressed_ = !compression.empty();
#ifndef OPFORGE_HAVE_ZLIB
    if (compressed_) {
      return errors::Unimplemented(op, ": reading ", compression,
                                   " files needs zlib, which this build of opforge did not find (Debian: zlib1g-dev)");
    }
#endif
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) return errors::NotFound(op, ": ", path, "; No such file or directory");
    raw_.resize(std::max<size_t>(buffer, 1 << 16));
#ifdef OPFORGE_HAVE_ZLIB
    if (compressed_) {
      std::memset(&z_, 0, sizeof(z_));
      // 15 + 32: a zlib or a gzip header, found from the stream
      if (inflateInit2(&z_, compression == "GZIP" ? 15 + 16 : 15) != Z_OK) {
        return errors::Internal(op, ": inflateInit2 failed");
      }
      zinit_ = true;
    }
#endif
    return Status::OK();
  }
  // Reads up to n bytes (fewer only at the end of the stream) into dst.
  Status Read(size_t n, std::string* dst) {
    dst->clear();
    while (dst->size() < n) {
      if (pos_ == have_) {
        OPF_RETURN_IF_ERROR(Fill());
        if (have_ == 0) break;
      }
      const size_t take = std::min(n - dst->size(), have_ - pos_);
      dst->append(out_.data() + pos_, take);
      pos_ += take;
    }
    offset_ += static_cast<int64_t>(dst->size());
    return Status::OK();
  }
  // Reads a line (without "\n" or "\r\n") into dst; false at the end of the stream.
  Status ReadLine(std::string* dst, bool* got) {
    dst->clear();
    *got = false;
    while (true) {
      if (pos_ == have_) {
        OPF_RETURN_IF_ERROR(Fill());
        if (have_ == 0) break;
      }
      *got = true;
      const char* start = out_.data() + pos_;
      const void* nl = std::memchr(start, '\n', have_ - pos_);
      if (nl) {
        const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - start);
        dst->append(start, len);
        pos_ += len + 1;
        break;
      }
      dst->append(start, have_ - pos_);
      pos_ = have_;
    }
    if (!dst->empty() && dst->back() == '\r') dst->pop_back();
    return Status::OK();
  }
  int64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }
  std::string lookahead;  // bytes read ahead (fixed-length records)

 private:
  // Refills out_ (have_ == 0 at the end of the stream).
  Status Fill() {
    pos_ = have_ = 0;
    if (!compressed_) {
      out_.resize(raw_.size());
      have_ = std::fread(out_.data(), 1, out_.size(), f_);
      if (have_ == 0 && std::ferror(f_)) return errors::DataLoss(op_, ": error reading ", path_);
      return Status::OK();
    }
#ifdef OPFORGE_HAVE_ZLIB
    out_.resize(raw_.size() * 2);
    while (have_ == 0 && !zend_) {
      if (z_.avail_in == 0) {
        const size_t got = std::fread(raw_.data(), 1, raw_.size(), f_);
        if (got == 0) {
          if (std::ferror(f_)) return errors::DataLoss(op_, ": error reading ", path_);
          return errors::DataLoss(op_, ": ", path_, ": truncated compressed stream near offset ", offset_);
        }
        z_.next_in = reinterpret_cast<Bytef*>(raw_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      const int r = inflate(&z_, Z_NO_FLUSH);
      if (r != Z_OK && r != Z_STREAM_END) {
        return errors::DataLoss(op_, ": ", path_, ": corrupted compressed stream near offset ", offset_, " (",
                                z_.msg ? z_.msg : "zlib error", ")");
      }
      have_ = out_.size() - z_.avail_out;
      if (r == Z_STREAM_END) zend_ = true;
    }
#endif
    return Status::OK();
  }

  std::string op_, path_;
  std::FILE* f_ = nullptr;
  bool compressed_ = false;
  std::vector<char> raw_, out_;
  size_t pos_ = 0, have_ = 0;
  int64_t offset_ = 0;
#ifdef OPFORGE_HAVE_ZLIB
  z_stream z_;
  bool zinit_ = false, zend_ = false;
#endif
};

enum class Format { kTFRecord, kTextLine, kFixedLength };

struct FileSpec {
  Format format;
  std::string compression;
  int64_t buffer = 0, header = 0, record = 0, footer = 0;
};

uint32_t read_le32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Reads the next record of one file.
Status next_record(const FileSpec& spec, InputStream& in, std::string* rec, bool* got) {
  *got = false;
  if (spec.format == Format::kTextLine) return in.ReadLine(rec, got);
  if (spec.format == Format::kFixedLength) {
    // Records are read footer_bytes ahead, so the footer is never taken for a record.
    const size_t want = static_cast<size_t>(spec.record + spec.footer);
    std::string more;
    if (in.lookahead.size() < want) {
      OPF_RETURN_IF_ERROR(in.Read(want - in.lookahead.size(), &more));
      in.lookahead += more;
    }
    if (in.lookahead.size() < want) {
      if (in.lookahead.size() == static_cast<size_t>(spec.footer)) return Status::OK();  // the end
      // TensorFlow's error: InvalidArgument, DataLoss in a compressed file
      const int64_t body = in.offset() - spec.header - spec.footer;
      Status s = errors::InvalidArgument(
          "FixedLengthRecordDatasetV2: Excluding the header (", spec.header, " bytes) and footer (", spec.footer,
          " bytes), input file \"", in.path(), "\" has body length ", std::max<int64_t>(body, 0),
          " bytes, which is not an exact multiple of the record length (", spec.record, " bytes).");
      return spec.compression.empty() ? s : errors::DataLoss(s.message());
    }
    rec->assign(in.lookahead, 0, static_cast<size_t>(spec.record));
    in.lookahead.erase(0, static_cast<size_t>(spec.record));
    *got = true;
    return Status::OK();
  }
  const int64_t at = in.offset();
  std::string header;
  OPF_RETURN_IF_ERROR(in.Read(12, &header));
  if (header.empty()) return Status::OK();
  if (header.size() < 12) {
    return errors::DataLoss("truncated record at ", at, " in ", in.path(), ": header has ", header.size(),
                            " of 12 bytes");
  }
  uint64_t len;
  std::memcpy(&len, header.data(), 8);
  if (crc32c_mask(crc32c(header.data(), 8)) != read_le32(header.data() + 8)) {
    return errors::DataLoss("corrupted record at ", at, " in ", in.path(), ": the length's checksum does not match");
  }
  // Read in pieces so that a corrupted-but-checksummed huge length cannot allocate it all.
  rec->clear();
  std::string piece;
  uint64_t left = len + 4;
  while (left) {
    OPF_RETURN_IF_ERROR(in.Read(static_cast<size_t>(std::min<uint64_t>(left, 1u << 24)), &piece));
    if (piece.empty()) break;
    rec->append(piece);
    left -= piece.size();
  }
  if (left) {
    return errors::DataLoss("truncated record at ", at, " in ", in.path(), ": expected ", len,
                            " data bytes and a 4-byte checksum, got ", rec->size(), " bytes");
  }
  const uint32_t want = read_le32(rec->data() + len);
  rec->resize(static_cast<size_t>(len));
  if (crc32c_mask(crc32c(rec->data(), rec->size())) != want) {
    return errors::DataLoss("corrupted record at ", at + 12, " in ", in.path(), ": the data's checksum does not match");
  }
  *got = true;
  return Status::OK();
}

class RecordDataset final : public DatasetBase {
 public:
  RecordDataset(const std::string& op, std::vector<std::string> files, FileSpec spec)
      : DatasetBase(op, {DType::kString}, {Shape({})}), files_(std::move(files)), spec_(std::move(spec)) {}
  Status MakeIterator(std::unique_ptr<IteratorBase>* out) const override {
    class It final : public IteratorBase {
     public:
      explicit It(const RecordDataset* ds) : ds_(ds) {}
      Status GetNext(std::vector<Tensor>* out, bool* end) override {
        std::string rec;
        while (true) {
          if (!in_) {
            if (next_file_ >= ds_->files_.size()) {
              *end = true;
              return Status::OK();
            }
            in_ = std::make_unique<InputStream>();
            OPF_RETURN_IF_ERROR(in_->Open(ds_->op(), ds_->files_[next_file_++], ds_->spec_.compression,
                                          static_cast<size_t>(std::max<int64_t>(ds_->spec_.buffer, 0))));
            if (ds_->spec_.format == Format::kFixedLength && ds_->spec_.header > 0) {
              std::string skip;
              OPF_RETURN_IF_ERROR(in_->Read(static_cast<size_t>(ds_->spec_.header), &skip));
              if (static_cast<int64_t>(skip.size()) < ds_->spec_.header) {
                return errors::DataLoss(ds_->op(), ": ", in_->path(), " is shorter than its header (",
                                        ds_->spec_.header, " bytes)");
              }
            }
          }
          bool got = false;
          OPF_RETURN_IF_ERROR(next_record(ds_->spec_, *in_, &rec, &got));
          if (got) break;
          in_.reset();
        }
        Tensor t;
        OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape({}), {std::move(rec)}, &t));
        out->assign(1, std::move(t));
        *end = false;
        return Status::OK();
      }

     private:
      const RecordDataset* ds_;
      size_t next_file_ = 0;
      std::unique_ptr<InputStream> in_;
    };
    *out = std::make_unique<It>(this);
    return Status::OK();
  }

 private:
  std::vector<std::string> files_;
  FileSpec spec_;
};

Status file_names(const std::string& op, const Tensor& t, std::vector<std::string>* out) {
  if (t.dtype() != DType::kString || t.rank() > 1) {
    return errors::InvalidArgument(op, ": filenames must be a scalar or vector of strings, got ", dtype_name(t.dtype()),
                                   " ", t.shape().to_string());
  }
  *out = *t.strings();
  return Status::OK();
}

Status compression_of(const std::string& op, const Tensor& t, std::string* out) {
  if (t.dtype() != DType::kString || t.num_elements() != 1) {
    return errors::InvalidArgument(op, ": compression_type must be a scalar string");
  }
  *out = t.strings()->front();
  if (*out != "" && *out != "ZLIB" && *out != "GZIP") {
    return errors::InvalidArgument(op, ": compression_type must be '', 'ZLIB' or 'GZIP', got '", *out, "'");
  }
  return Status::OK();
}

template <typename Args>
Status text_or_records(Args& a, Format format) {
  FileSpec spec{format, "", 0, 0, 0, 0};
  std::vector<std::string> files;
  OPF_RETURN_IF_ERROR(file_names(a.kOpName, a.filenames, &files));
  OPF_RETURN_IF_ERROR(compression_of(a.kOpName, a.compression_type, &spec.compression));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "buffer_size", a.buffer_size, &spec.buffer));
  if (spec.buffer < -1) return a.ctx.error("buffer_size must be >= 0 (or -1: the default), got ", spec.buffer);
  set_dataset_output(a.ctx, 0, std::make_shared<RecordDataset>(a.kOpName, std::move(files), spec));
  return Status::OK();
}

Status TFRecordDatasetCpu(ops::TFRecordDatasetArgs& a) { return text_or_records(a, Format::kTFRecord); }
Status TextLineDatasetCpu(ops::TextLineDatasetArgs& a) { return text_or_records(a, Format::kTextLine); }

Status FixedLengthRecordDatasetV2Cpu(ops::FixedLengthRecordDatasetV2Args& a) {
  FileSpec spec{Format::kFixedLength, "", 0, 0, 0, 0};
  std::vector<std::string> files;
  OPF_RETURN_IF_ERROR(file_names(a.kOpName, a.filenames, &files));
  OPF_RETURN_IF_ERROR(compression_of(a.kOpName, a.compression_type, &spec.compression));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "header_bytes", a.header_bytes, &spec.header));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "record_bytes", a.record_bytes, &spec.record));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "footer_bytes", a.footer_bytes, &spec.footer));
  OPF_RETURN_IF_ERROR(data::scalar_int64(a.kOpName, "buffer_size", a.buffer_size, &spec.buffer));
  if (spec.record <= 0) return a.ctx.error("record_bytes must be greater than zero, got ", spec.record);
  if (spec.header < 0 || spec.footer < 0 || spec.buffer < -1) {
    return a.ctx.error("header_bytes, footer_bytes and buffer_size must be >= 0");
  }
  constexpr int64_t kMost = int64_t{1} << 40;  // record_bytes + footer_bytes is read ahead as one string
  if (spec.record > kMost || spec.footer > kMost || spec.header > kMost) {
    return a.ctx.error("header_bytes, record_bytes and footer_bytes must be at most 2^40");
  }
  set_dataset_output(a.ctx, 0, std::make_shared<RecordDataset>(a.kOpName, std::move(files), spec));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TFRecordDataset, CPU, TFRecordDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(TextLineDataset, CPU, TextLineDatasetCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(FixedLengthRecordDatasetV2, CPU, FixedLengthRecordDatasetV2Cpu)

}  // namespace opforge
