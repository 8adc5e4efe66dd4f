; Adaptive chunking: a tiny kernel dequeues 8 groups at a time, a bigger one fewer.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK-LABEL: define dso_local spir_kernel void @tiny(
; CHECK: call spir_func i32 @aos_rt_dequeue({{.*}}@tiny.aos_slots{{.*}}, i32 8)
; CHECK-LABEL: define dso_local spir_kernel void @big(
; CHECK: call spir_func i32 @aos_rt_dequeue({{.*}}@big.aos_slots{{.*}}, i32 [[C:[12]]])
; CHECK-DAG: !{!"tiny", i32 1, i32 8, i32 {{[0-9]}}, !""}
; CHECK-DAG: !{!"big", i32 1, i32 [[C]], i32 {{[0-9]+}}, !""}
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @tiny(i32 addrspace(1)* nocapture noundef writeonly align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %3 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %2
  store i32 1, i32 addrspace(1)* %3, align 4, !tbaa !9
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: argmemonly convergent nofree norecurse nounwind
define dso_local spir_kernel void @big(float addrspace(1)* nocapture noundef align 4 %0, i32 noundef %1) local_unnamed_addr #2 !kernel_arg_addr_space !13 !kernel_arg_access_qual !14 !kernel_arg_type !15 !kernel_arg_base_type !15 !kernel_arg_type_qual !16 !kernel_arg_name !17 {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %9, label %4

4:                                                ; preds = %33, %2
  %5 = phi float [ 0.000000e+00, %2 ], [ %35, %33 ]
  %6 = tail call float @llvm.fmuladd.f32(float %5, float %5, float 1.000000e+00)
  %7 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %8 = getelementptr inbounds float, float addrspace(1)* %0, i64 %7
  store float %6, float addrspace(1)* %8, align 4, !tbaa !18
  ret void

9:                                                ; preds = %2, %33
  %10 = phi i32 [ %34, %33 ], [ 0, %2 ]
  %11 = phi float [ %35, %33 ], [ 0.000000e+00, %2 ]
  %12 = zext i32 %10 to i64
  %13 = getelementptr inbounds float, float addrspace(1)* %0, i64 %12
  %14 = load float, float addrspace(1)* %13, align 4, !tbaa !18
  %15 = tail call spir_func float @_Z3sinf(float noundef %11) #4
  %16 = tail call float @llvm.fmuladd.f32(float %11, float %14, float %15)
  %17 = fcmp ogt float %16, 3.000000e+00
  br i1 %17, label %18, label %25

18:                                               ; preds = %9
  %19 = tail call spir_func float @_Z3cosf(float noundef %16) #4
  %20 = add nuw nsw i32 %10, 1
  %21 = zext i32 %20 to i64
  %22 = getelementptr inbounds float, float addrspace(1)* %0, i64 %21
  %23 = load float, float addrspace(1)* %22, align 4, !tbaa !18
  %24 = fmul float %19, %23
  br label %33

25:                                               ; preds = %9
  %26 = add nuw nsw i32 %10, 2
  %27 = zext i32 %26 to i64
  %28 = getelementptr inbounds float, float addrspace(1)* %0, i64 %27
  %29 = load float, float addrspace(1)* %28, align 4, !tbaa !18
  %30 = fneg float %29
  %31 = tail call float @llvm.fmuladd.f32(float %30, float 2.000000e+00, float %16)
  %32 = add nuw nsw i32 %10, 1
  br label %33

33:                                               ; preds = %18, %25
  %34 = phi i32 [ %20, %18 ], [ %32, %25 ]
  %35 = phi float [ %24, %18 ], [ %31, %25 ]
  %36 = icmp slt i32 %34, %1
  br i1 %36, label %9, label %4
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func float @_Z3sinf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn
declare float @llvm.fmuladd.f32(float, float, float) #3

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func float @_Z3cosf(float noundef) local_unnamed_addr #1

attributes #0 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { argmemonly convergent nofree norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #4 = { convergent nounwind readnone willreturn }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1}
!5 = !{!"none"}
!6 = !{!"int*"}
!7 = !{!""}
!8 = !{!"o"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{i32 1, i32 0}
!14 = !{!"none", !"none"}
!15 = !{!"float*", !"int"}
!16 = !{!"", !""}
!17 = !{!"o", !"n"}
!18 = !{!19, !19, i64 0}
!19 = !{!"float", !11, i64 0}
