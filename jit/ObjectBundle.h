//===- ObjectBundle.h - several relocatable objects as one string -*- C++
//-*-===//
//
// An executable's object code is one string wherever it travels (the
// compile cache's entries, the compile worker's reply, Executable::load).
// A module emitted in parts (ParallelCodegen.h) is several ELF objects;
// they are bundled into one string here and taken apart by the loader.
// A single object stays as it is (an ELF file), so entries written before
// bundles existed load unchanged.
//
// Layout: the 16-byte magic "anyshape-objects", a little-endian uint32
// count (2..kMaxBundledObjects), then per object a uint64 size and its
// bytes. Nothing may follow the last object.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "runtime/support/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace anyshape::jit {

inline constexpr int kMaxBundledObjects = 64;

/// `objects` (1..kMaxBundledObjects) as one string: the object itself,
/// moved (it may hold a model's weights), when there is one; a bundle
/// otherwise.
std::string bundleObjects(std::vector<std::string> objects);

/// The objects in `code` (views into it): one for a plain object, each of
/// a bundle's otherwise. INVALID_ARGUMENT for a damaged bundle (a count
/// out of range, a size past the end, bytes left over); a plain object is
/// not checked here (the linker does).
StatusOr<std::vector<std::string_view>> objectsIn(std::string_view code);

} // namespace anyshape::jit
