//===- DhloDialect.cpp - dialect, #dhlo.shape, type bridge ------*- C++ -*-===//
//
// Registers the dialect, implements #dhlo.shape (printing, parsing,
// verification as a tensor encoding), gives reductions' identities, and
// converts between dhlo tensor types and the wire format's SymTensorType.
//
//===----------------------------------------------------------------------===//
#include "ir/dhlo/IR/DhloDialect.h"

#include "ir/graph/DimText.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;

#include "ir/dhlo/IR/DhloDialect.cpp.inc"

namespace anyshape::dhlo {

void DhloDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ir/dhlo/IR/DhloAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ir/dhlo/IR/DhloOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #dhlo.shape
//===----------------------------------------------------------------------===//

std::optional<SymExpr> ShapeAttr::getDim(int64_t i) const {
  Attribute entry = getDims()[i];
  if (auto size = llvm::dyn_cast<IntegerAttr>(entry))
    return SymExpr::constant(size.getInt());
  if (auto text = llvm::dyn_cast<StringAttr>(entry))
    return parseSymExpr(text.getValue().str());
  return std::nullopt;
}

bool ShapeAttr::isInferred(int64_t i) const {
  auto size = llvm::dyn_cast<IntegerAttr>(getDims()[i]);
  return size && size.getInt() == -1;
}

ShapeAttr ShapeAttr::get(MLIRContext *context,
                         llvm::ArrayRef<std::optional<SymExpr>> dims) {
  SmallVector<Attribute> entries;
  for (const std::optional<SymExpr> &dim : dims) {
    if (!dim)
      entries.push_back(UnitAttr::get(context));
    else if (auto v = dim->constantValue())
      entries.push_back(IntegerAttr::get(IntegerType::get(context, 64), *v));
    else
      entries.push_back(StringAttr::get(context, dim->toString()));
  }
  return get(context, entries);
}

LogicalResult ShapeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<Attribute> dims) {
  for (auto [i, entry] : llvm::enumerate(dims)) {
    if (auto size = llvm::dyn_cast<IntegerAttr>(entry)) {
      if (size.getInt() < -1)
        return emitError() << "#dhlo.shape dim " << i << " is negative ("
                           << size.getInt() << ")";
    } else if (auto text = llvm::dyn_cast<StringAttr>(entry)) {
      if (!parseSymExpr(text.getValue().str()))
        return emitError() << "#dhlo.shape dim " << i << " '" << text.getValue()
                           << "' is not a polynomial over symbols";
    } else if (!llvm::isa<UnitAttr>(entry)) {
      return emitError() << "#dhlo.shape dim " << i
                         << " must be an integer, a symbol expression or ?";
    }
  }
  return success();
}

LogicalResult
ShapeAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                          function_ref<InFlightDiagnostic()> emitError) const {
  if (static_cast<int64_t>(shape.size()) != getRank())
    return emitError() << "#dhlo.shape has " << getRank()
                       << " dims for a tensor of rank " << shape.size();
  for (auto [i, size] : llvm::enumerate(shape)) {
    std::optional<SymExpr> dim = getDim(i);
    std::optional<int64_t> value = dim ? dim->constantValue() : std::nullopt;
    if (isInferred(i))
      return emitError() << "#dhlo.shape dim " << i
                         << " is -1, which only a reshape target may use";
    if (ShapedType::isDynamic(size) ? value.has_value()
                                    : value != std::optional<int64_t>(size))
      return emitError() << "#dhlo.shape dim " << i
                         << " disagrees with the tensor's size "
                         << (ShapedType::isDynamic(size)
                                 ? std::string("?")
                                 : std::to_string(size));
  }
  return success();
}

Attribute ShapeAttr::parse(AsmParser &parser, Type) {
  SmallVector<Attribute> dims;
  MLIRContext *context = parser.getContext();
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalGreater()))
    return ShapeAttr::get(context, dims);
  do {
    int64_t size;
    StringRef keyword;
    std::string text;
    OptionalParseResult integer = parser.parseOptionalInteger(size);
    if (integer.has_value()) {
      if (failed(*integer))
        return {};
      dims.push_back(IntegerAttr::get(IntegerType::get(context, 64), size));
    } else if (succeeded(parser.parseOptionalQuestion())) {
      dims.push_back(UnitAttr::get(context));
    } else if (succeeded(parser.parseOptionalKeyword(&keyword))) {
      dims.push_back(StringAttr::get(context, keyword));
    } else if (succeeded(parser.parseOptionalString(&text))) {
      dims.push_back(StringAttr::get(context, text));
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       "expected a size, a symbol, a quoted expression or ?");
      return {};
    }
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ShapeAttr>(context, dims);
}

void ShapeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  llvm::interleaveComma(getDims(), printer, [&](Attribute entry) {
    if (auto size = llvm::dyn_cast<IntegerAttr>(entry))
      printer << size.getInt();
    else if (auto text = llvm::dyn_cast<StringAttr>(entry))
      isValidSymbolName(text.getValue().str())
          ? printer << text.getValue()
          : printer << "\"" << text.getValue() << "\"";
    else
      printer << "?";
  });
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TypedAttr reductionIdentity(Builder &b, StringRef kind, Type t) {
  if (auto f = llvm::dyn_cast<FloatType>(t)) {
    double inf = std::numeric_limits<double>::infinity();
    double v = kind == "sum"    ? 0.0
               : kind == "prod" ? 1.0
               : kind == "max"  ? -inf
                                : inf;
    return b.getFloatAttr(f, v);
  }
  unsigned width = t.getIntOrFloatBitWidth();
  APInt v = kind == "sum"    ? APInt(width, 0)
            : kind == "prod" ? APInt(width, 1)
            : kind == "max"  ? APInt::getSignedMinValue(width)
                             : APInt::getSignedMaxValue(width);
  return b.getIntegerAttr(t, v);
}

//===----------------------------------------------------------------------===//
// dhlo types <-> SymTensorType
//===----------------------------------------------------------------------===//

std::optional<v1::DType> dtypeOf(Type t) {
  if (t.isF32())
    return v1::DTYPE_F32;
  if (t.isF16())
    return v1::DTYPE_F16;
  if (t.isBF16())
    return v1::DTYPE_BF16;
  if (t.isSignlessInteger(32))
    return v1::DTYPE_I32;
  if (t.isSignlessInteger(64))
    return v1::DTYPE_I64;
  if (t.isSignlessInteger(1))
    return v1::DTYPE_BOOL;
  return std::nullopt;
}

Type elementTypeOf(MLIRContext *context, v1::DType dtype) {
  Builder b(context);
  switch (dtype) {
  case v1::DTYPE_F32:
    return b.getF32Type();
  case v1::DTYPE_F16:
    return b.getF16Type();
  case v1::DTYPE_BF16:
    return b.getBF16Type();
  case v1::DTYPE_I32:
    return b.getI32Type();
  case v1::DTYPE_I64:
    return b.getI64Type();
  default:
    return b.getI1Type();
  }
}

std::optional<SymTensorType> symbolicTypeOf(Type type, ShapeContext &ctx) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  std::optional<v1::DType> dtype = dtypeOf(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  auto shape = llvm::dyn_cast_or_null<ShapeAttr>(tensor.getEncoding());
  SymTensorType result{*dtype, {}};
  for (auto [i, size] : llvm::enumerate(tensor.getShape())) {
    if (!ShapedType::isDynamic(size))
      result.dims.push_back(SymExpr::constant(size));
    else if (std::optional<SymExpr> dim =
                 shape ? shape.getDim(i) : std::nullopt)
      result.dims.push_back(std::move(*dim));
    else
      result.dims.push_back(ctx.fresh());
  }
  return result;
}

RankedTensorType tensorTypeOf(MLIRContext *context, const SymTensorType &type) {
  SmallVector<int64_t> shape;
  SmallVector<std::optional<SymExpr>> dims;
  bool allStatic = true;
  for (const SymExpr &dim : type.dims) {
    std::optional<int64_t> value = dim.constantValue();
    shape.push_back(value ? *value : ShapedType::kDynamic);
    allStatic &= value.has_value();
    bool local = llvm::any_of(dim.leafSymbols(), [](const std::string &name) {
      return llvm::StringRef(name).starts_with(kLocalFreshPrefix);
    });
    dims.push_back(local ? std::nullopt : std::optional<SymExpr>(dim));
  }
  // No encoding when it would say nothing beyond the tensor's own shape.
  bool anyKnown = llvm::any_of(dims, [](const std::optional<SymExpr> &d) {
    return d && !d->isConstant();
  });
  Attribute encoding;
  if (!allStatic && anyKnown)
    encoding = ShapeAttr::get(context, dims);
  return RankedTensorType::get(shape, elementTypeOf(context, type.dtype),
                               encoding);
}

} // namespace anyshape::dhlo

#define GET_ATTRDEF_CLASSES
#include "ir/dhlo/IR/DhloAttrs.cpp.inc"
