// CRC-32C (Castagnoli), as TensorFlow's record files and checkpoints checksum their data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opforge {

// The CRC-32C of n bytes, continuing from `crc` (the value of the bytes before; 0 to start).
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t n);
inline uint32_t crc32c(const void* data, size_t n) { return crc32c_extend(0, data, n); }

// TensorFlow's masked form (a CRC of data that holds CRCs is weak): rotate right by 15 bits
// and add a constant.
inline uint32_t crc32c_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace opforge
