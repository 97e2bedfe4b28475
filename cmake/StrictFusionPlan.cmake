# Read by ctest before it runs any test (the TEST_INCLUDE_FILES of the
# top-level directory): every compile in the suite fails on a departure
# from the fusion plan instead of warning (codegen/CPU/CpuPipeline.h), so a
# change that splits a fusion into several kernels fails a test. The test
# processes inherit the variable from ctest.
set(ENV{ANYSHAPE_STRICT_FUSION_PLAN} 1)
