// RUN: %anyshape-opt %s -split-input-file -anyshape-pack-constant-weights | FileCheck %s
// The anyshape-pack-constant-weights pass. A GEMM call whose B is a view
// of a constant global (constant, or marked anyshape.load_time_constant)
// calls @anyshapeBatchMatmulPackedF32 with one more operand: its weight
// view's slot, a private zero-initialised memref<1xi64> global fetched in
// the host flow before the fusion (so outlining passes it as an operand,
// as it passes the weight). Two calls on one view share its slot; another
// view gets its own. @anyshape_finalize releases every slot. B that is an
// input, or a global other code may write, keeps the plain call.

!strided = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>

// CHECK-LABEL: module @weights
// CHECK-DAG: func.func private @anyshapeBatchMatmulPackedF32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<1xi64>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @anyshapeReleaseGemmPack(i64)
// CHECK-DAG: memref.global "private" @[[S0:anyshape_gemm_pack[_0-9]*]] : memref<1xi64> = dense<0> {alignment = 8 : i64}
// CHECK-DAG: memref.global "private" @[[S1:anyshape_gemm_pack[_0-9]*]] : memref<1xi64> = dense<0> {alignment = 8 : i64}
// CHECK-NOT: func.func private @anyshapeBatchMatmulF32(
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.*]] = memref.get_global @dense
// CHECK: %[[SLOT:.*]] = memref.get_global @[[S0]] : memref<1xi64>
// CHECK-NEXT: dhlo.fusion
// CHECK: call @anyshapeBatchMatmulPackedF32(%{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT]])
// CHECK: %[[SAME:.*]] = memref.get_global @[[S0]] : memref<1xi64>
// CHECK-NEXT: dhlo.fusion
// CHECK: call @anyshapeBatchMatmulPackedF32(%{{.*}}, %{{.*}}, %{{.*}}, %[[SAME]])
// CHECK: %[[OTHER:.*]] = memref.get_global @[[S1]] : memref<1xi64>
// CHECK-NEXT: dhlo.fusion
// CHECK: memref.transpose
// CHECK: call @anyshapeBatchMatmulPackedF32(%{{.*}}, %{{.*}}, %{{.*}}, %[[OTHER]])
// CHECK: func.func @anyshape_finalize()
// CHECK: memref.get_global @[[S0]]
// CHECK: call @anyshapeReleaseGemmPack(
// CHECK: memref.get_global @[[S1]]
// CHECK: call @anyshapeReleaseGemmPack(
// CHECK-NEXT: return
module @weights {
  func.func private @anyshapeBatchMatmulF32(!strided, !strided, !strided) attributes {llvm.emit_c_interface}
  memref.global "private" constant @dense : memref<1x8x16xf32> = dense<1.0> {alignment = 64 : i64}
  memref.global "public" @seeded : memref<1x16x8xf32> = uninitialized {alignment = 64 : i64, anyshape.load_time_constant}
  func.func @main(%a: memref<1x?x8xf32>, %at: memref<1x?x16xf32>, %c: memref<1x?x16xf32>, %d: memref<1x?x8xf32>) {
    %w = memref.get_global @dense : memref<1x8x16xf32>
    %s = memref.get_global @seeded : memref<1x16x8xf32>
    dhlo.fusion "kLibrary" 0 versions ["library"] {
      %ca = memref.cast %a : memref<1x?x8xf32> to !strided
      %cw = memref.cast %w : memref<1x8x16xf32> to !strided
      %cc = memref.cast %c : memref<1x?x16xf32> to !strided
      func.call @anyshapeBatchMatmulF32(%ca, %cw, %cc) : (!strided, !strided, !strided) -> ()
      dhlo.yield
    }
    dhlo.fusion "kLibrary" 1 versions ["library"] {
      %ca = memref.cast %a : memref<1x?x8xf32> to !strided
      %cw = memref.cast %w : memref<1x8x16xf32> to !strided
      %cc = memref.cast %c : memref<1x?x16xf32> to !strided
      func.call @anyshapeBatchMatmulF32(%ca, %cw, %cc) : (!strided, !strided, !strided) -> ()
      dhlo.yield
    }
    dhlo.fusion "kLibrary" 2 versions ["library"] {
      %ca = memref.cast %at : memref<1x?x16xf32> to !strided
      %t = memref.transpose %s (d0, d1, d2) -> (d0, d2, d1) : memref<1x16x8xf32> to memref<1x8x16xf32, strided<[128, 1, 8]>>
      %cw = memref.cast %t : memref<1x8x16xf32, strided<[128, 1, 8]>> to !strided
      %cd = memref.cast %d : memref<1x?x8xf32> to !strided
      func.call @anyshapeBatchMatmulF32(%ca, %cw, %cd) : (!strided, !strided, !strided) -> ()
      dhlo.yield
    }
    return
  }
}

// -----

// B an input, or a global without either mark: the plain call, no slot,
// no finalizer.
// CHECK-LABEL: module @activations
// CHECK-NOT: anyshapeBatchMatmulPackedF32
// CHECK-NOT: anyshape_gemm_pack
// CHECK-NOT: anyshape_finalize
// CHECK: call @anyshapeBatchMatmulF32(
// CHECK: call @anyshapeBatchMatmulF32(
// CHECK-NOT: anyshape_finalize
!strided = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
module @activations {
  func.func private @anyshapeBatchMatmulF32(!strided, !strided, !strided) attributes {llvm.emit_c_interface}
  memref.global "private" @scratch : memref<1x8x16xf32> = dense<0.0>
  func.func @main(%a: memref<1x?x8xf32>, %b: memref<1x8x16xf32>, %c: memref<1x?x16xf32>) {
    %ca = memref.cast %a : memref<1x?x8xf32> to !strided
    %cb = memref.cast %b : memref<1x8x16xf32> to !strided
    %cc = memref.cast %c : memref<1x?x16xf32> to !strided
    func.call @anyshapeBatchMatmulF32(%ca, %cb, %cc) : (!strided, !strided, !strided) -> ()
    %g = memref.get_global @scratch : memref<1x8x16xf32>
    %cg = memref.cast %g : memref<1x8x16xf32> to !strided
    func.call @anyshapeBatchMatmulF32(%ca, %cg, %cc) : (!strided, !strided, !strided) -> ()
    return
  }
}
