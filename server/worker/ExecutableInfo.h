// The ExecutableInfo a Compile returns: the executable's id, its input
// and output signatures (symbolic dims as the wire spells them), symbols,
// kernel count, code size and fusion plan.
#pragma once

#include "anyshape/v1/service.pb.h"
#include "compiler/Compiler.h"

namespace anyshape::server {

/// For the executable compiled as `compiled` (not yet linked).
StatusOr<v1::ExecutableInfo>
describeExecutable(const std::string &id,
                   const compiler::CompiledObject &compiled,
                   const compiler::CompileReport &report);

} // namespace anyshape::server
