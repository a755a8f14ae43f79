// The parser behind ParseExample, ParseExampleV2 and ParseSingleExample: serialized
// tf.train.Examples to sparse, dense and ragged tensors, as TensorFlow's fast example parser
// gives them (values, shapes, defaults and error messages).
#pragma once

#include <string>
#include <vector>

#include "opforge/kernel.h"

namespace opforge {
namespace example {

struct SparseConfig {  // a VarLenFeature: indices, values, dense_shape
  std::string key;
  DType dtype;
};

struct DenseConfig {  // a FixedLenFeature, or (shape [?, ...]) a FixedLenSequenceFeature
  std::string key;
  DType dtype;
  Shape shape;
  const Tensor* default_value;  // empty: the feature is required
};

struct RaggedConfig {  // values and row splits
  std::string key;
  DType dtype;
  DType split_type;
};

// Parses `serialized` (a scalar or a vector of strings; `names` empty or one per proto) and
// sets the kernel's outputs, laid out as the parsing ops declare them: sparse indices, sparse
// values, sparse shapes (one each per sparse feature), dense values, ragged values, ragged
// row splits.
Status parse_examples(KernelContext& ctx, const Tensor& serialized, const Tensor* names,
                      const std::vector<SparseConfig>& sparse, const std::vector<DenseConfig>& dense,
                      const std::vector<RaggedConfig>& ragged);

// A feature list of a SequenceExample: its steps' values as a SparseTensor (kSparse), a dense
// tensor of `shape` per step with the lengths (kDense), or values with outer and inner row
// splits (kRagged).
struct FeatureListConfig {
  enum Layout { kSparse, kDense, kRagged };
  std::string key;
  DType dtype;
  Layout layout;
  Shape shape;                       // kDense: the shape of one step
  bool missing_ok = true;            // kDense: an example may lack it (length 0)
  DType split_type = DType::kInt64;  // kRagged
};

// Parses the feature lists of `serialized` SequenceExamples and sets the kernel's outputs from
// `first_output` on, laid out as ParseSequenceExampleV2 declares them: sparse indices, values,
// shapes; dense values, lengths; ragged values, outer splits, inner splits. `lists` holds the
// sparse, then the dense, then the ragged feature lists.
// Without `with_lengths` (ParseSingleSequenceExample) the dense lists have no lengths output.
Status parse_feature_lists(KernelContext& ctx, const Tensor& serialized, const Tensor* names,
                           const std::vector<FeatureListConfig>& lists, int first_output, bool with_lengths = true);

}  // namespace example
}  // namespace opforge
