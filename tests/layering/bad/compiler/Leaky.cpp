// What check_targets.sh must refuse: a target picked outside its seam.
bool onCuda(const CompileOptions &o) {
  return o.backend == KernelBackend::kCuda;
}
