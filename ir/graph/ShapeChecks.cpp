// The symbols a run-time shape check reads (ShapeChecks.h).
#include "ShapeChecks.h"

#include <algorithm>

namespace anyshape {

std::vector<std::string> ShapeCheck::symbolsRead() const {
  std::vector<std::string> names = a.symbols();
  for (std::string &name : b.symbols())
    names.push_back(std::move(name));
  for (const SymExpr &d : dims)
    for (std::string &name : d.symbols())
      names.push_back(std::move(name));
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

} // namespace anyshape
