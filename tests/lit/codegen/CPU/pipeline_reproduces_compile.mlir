// RUN: rm -rf %t && mkdir -p %t
// RUN: %anyshape eval %examples/bert_encoder_layer.pbtxt --backend cpu --dims batch=1,seq=4 --dump-ir %t/dump > /dev/null
// RUN: %anyshape import --full-constants %examples/bert_encoder_layer.pbtxt | %anyshape-opt --pass-pipeline='builtin.module(anyshape-cpu-pipeline)' -mlir-elide-elementsattrs-if-larger=16 > %t/opt.mlir
// RUN: cd %t/dump/2-mlir-pipeline/builtin_module_bert_encoder_layer && tail -n +2 $(ls *.mlir | sort -n | tail -1) | sed '/^$/d' > %t/compiler.mlir
// RUN: sed '/^$/d' %t/opt.mlir | diff %t/compiler.mlir -
// RUN: FileCheck %s < %t/opt.mlir
// The registered pipeline is the whole pipeline: the compiler's last IR
// (the module it hands to ObjectCode.h, from its --dump-ir) and
// anyshape-opt's anyshape-cpu-pipeline on `anyshape import` output are the
// same text. The import carries the run-time shape checks
// (dhlo.shape_checks), which anyshape-shape-check-function turns into the
// function the entry calls before @main.
// CHECK-DAG: llvm.func @anyshape_check_shapes
// CHECK-DAG: llvm.func @_mlir_ciface_main
// CHECK-DAG: llvm.func @anyshape_initialize
// CHECK-NOT: dhlo.shape_checks
