; A call-free innermost loop between the barriers of an outer loop is unrolled
; only when its trips times its memory accesses stay within 16
; (passes/inner_loop_unroll.cpp, MaxHoistedAccesses): unrolled, each access's
; address is hoisted above the barrier and PoCL keeps it in a per-work-item
; context array. Input: the OpenCL C below, compiled as the JIT's front end
; does on SPIR (-O2, no vectorizing, -fno-unroll-loops).
;
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-force-unroll-inner-loops)' -S %s -o - | FileCheck %s --check-prefix=MARK
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-unroll-inner-loops)' -S %s -o - \
; RUN:   | FileCheck %s --implicit-check-not=llvm.loop.unroll.full
;
; tile16: 16 trips x 2 loads = 32, both loops keep unroll.disable. tile8:
; 8 x 2 = 16, its inner loop is marked.
; MARK-LABEL: define {{.*}} @tile16(
; MARK: br i1 {{.*}}, !llvm.loop ![[O16:[0-9]+]]
; MARK: br i1 {{.*}}, !llvm.loop ![[I16:[0-9]+]]
; MARK-LABEL: define {{.*}} @tile8(
; MARK: br i1 {{.*}}, !llvm.loop ![[O8:[0-9]+]]
; MARK: br i1 {{.*}}, !llvm.loop ![[I8:[0-9]+]]
; MARK-DAG: ![[O16]] = distinct !{![[O16]], ![[OFF:[0-9]+]]}
; MARK-DAG: ![[I16]] = distinct !{![[I16]], ![[OFF]]}
; MARK-DAG: ![[O8]] = distinct !{![[O8]], ![[OFF]]}
; MARK-DAG: ![[I8]] = distinct !{![[I8]], ![[FULL:[0-9]+]]}
; MARK-DAG: ![[OFF]] = !{!"llvm.loop.unroll.disable"}
; MARK-DAG: ![[FULL]] = !{!"llvm.loop.unroll.full"}
;
; Unrolling: tile16 keeps its inner loop (one pair of local loads, in a block
; that is its own predecessor); tile8's becomes 16 local loads of straight code.
; CHECK-LABEL: define {{.*}} @tile16(
; CHECK: {{^}}[[H16:[0-9]+]]:{{ +}}; preds = {{.*}}%[[H16]]
; CHECK-COUNT-2: load float, float addrspace(3)*
; CHECK-NOT: load float, float addrspace(3)*
; CHECK-LABEL: define {{.*}} @tile8(
; CHECK-COUNT-16: load float, float addrspace(3)*
; CHECK-NOT: load float, float addrspace(3)*
; CHECK: call spir_func void @_Z7barrierj
; CHECK-NEXT: add nuw nsw i32 %{{[0-9]+}}, 8
;
; Source (OpenCL C):
;   kernel void tile16(global const float *a, global float *out, int n)
;   {
;   	local float as[16][16], bs[16][16];
;   	int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
;   	float acc = 0.0f;
;   	for (int t = 0; t < n; t += 16) {
;   		as[ty][tx] = a[t + ty * n + tx];
;   		bs[ty][tx] = a[t + tx * n + ty];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   		for (int i = 0; i < 16; i++)
;   			acc += as[i][tx] * bs[i][ty];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   	}
;   	out[get_global_id(1) * n + get_global_id(0)] = acc;
;   }
;
;   kernel void tile8(global const float *a, global float *out, int n)
;   {
;   	local float as[8][8], bs[8][8];
;   	int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
;   	float acc = 0.0f;
;   	for (int t = 0; t < n; t += 8) {
;   		as[ty][tx] = a[t + ty * n + tx];
;   		bs[ty][tx] = a[t + tx * n + ty];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   		for (int i = 0; i < 8; i++)
;   			acc += as[i][tx] * bs[i][ty];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   	}
;   	out[get_global_id(1) * n + get_global_id(0)] = acc;
;   }
; ModuleID = 'between.cl'
source_filename = "between.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

@tile16.as = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4
@tile16.bs = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4
@tile8.as = internal unnamed_addr addrspace(3) global [8 x [8 x float]] undef, align 4
@tile8.bs = internal unnamed_addr addrspace(3) global [8 x [8 x float]] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @tile16(float addrspace(1)* nocapture noundef readonly align 4 %0, float addrspace(1)* nocapture noundef writeonly align 4 %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %4 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #4
  %5 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 1) #4
  %6 = icmp sgt i32 %2, 0
  br i1 %6, label %7, label %18

7:                                                ; preds = %3
  %8 = trunc i64 %5 to i32
  %9 = trunc i64 %4 to i32
  %10 = mul nsw i32 %8, %2
  %11 = add i32 %10, %9
  %12 = sext i32 %8 to i64
  %13 = sext i32 %9 to i64
  %14 = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile16.as, i64 0, i64 %12, i64 %13
  %15 = mul nsw i32 %9, %2
  %16 = add i32 %15, %8
  %17 = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile16.bs, i64 0, i64 %12, i64 %13
  br label %26

18:                                               ; preds = %37, %3
  %19 = phi float [ 0.000000e+00, %3 ], [ %48, %37 ]
  %20 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1) #4
  %21 = sext i32 %2 to i64
  %22 = mul i64 %20, %21
  %23 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %24 = add i64 %22, %23
  %25 = getelementptr inbounds float, float addrspace(1)* %1, i64 %24
  store float %19, float addrspace(1)* %25, align 4, !tbaa !9
  ret void

26:                                               ; preds = %7, %37
  %27 = phi i32 [ 0, %7 ], [ %38, %37 ]
  %28 = phi float [ 0.000000e+00, %7 ], [ %48, %37 ]
  %29 = add i32 %11, %27
  %30 = sext i32 %29 to i64
  %31 = getelementptr inbounds float, float addrspace(1)* %0, i64 %30
  %32 = load float, float addrspace(1)* %31, align 4, !tbaa !9
  store float %32, float addrspace(3)* %14, align 4, !tbaa !9
  %33 = add i32 %16, %27
  %34 = sext i32 %33 to i64
  %35 = getelementptr inbounds float, float addrspace(1)* %0, i64 %34
  %36 = load float, float addrspace(1)* %35, align 4, !tbaa !9
  store float %36, float addrspace(3)* %17, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5
  br label %40

37:                                               ; preds = %40
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5
  %38 = add nuw nsw i32 %27, 16
  %39 = icmp slt i32 %38, %2
  br i1 %39, label %26, label %18, !llvm.loop !13

40:                                               ; preds = %26, %40
  %41 = phi i32 [ 0, %26 ], [ %49, %40 ]
  %42 = phi float [ %28, %26 ], [ %48, %40 ]
  %43 = zext i32 %41 to i64
  %44 = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile16.as, i64 0, i64 %43, i64 %13
  %45 = load float, float addrspace(3)* %44, align 4, !tbaa !9
  %46 = getelementptr inbounds [16 x [16 x float]], [16 x [16 x float]] addrspace(3)* @tile16.bs, i64 0, i64 %43, i64 %12
  %47 = load float, float addrspace(3)* %46, align 4, !tbaa !9
  %48 = tail call float @llvm.fmuladd.f32(float %45, float %47, float %42)
  %49 = add nuw nsw i32 %41, 1
  %50 = icmp ult i32 %41, 15
  br i1 %50, label %40, label %37, !llvm.loop !15
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn
declare float @llvm.fmuladd.f32(float, float, float) #3

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @tile8(float addrspace(1)* nocapture noundef readonly align 4 %0, float addrspace(1)* nocapture noundef writeonly align 4 %1, i32 noundef %2) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %4 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #4
  %5 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 1) #4
  %6 = icmp sgt i32 %2, 0
  br i1 %6, label %7, label %18

7:                                                ; preds = %3
  %8 = trunc i64 %5 to i32
  %9 = trunc i64 %4 to i32
  %10 = mul nsw i32 %8, %2
  %11 = add i32 %10, %9
  %12 = sext i32 %8 to i64
  %13 = sext i32 %9 to i64
  %14 = getelementptr inbounds [8 x [8 x float]], [8 x [8 x float]] addrspace(3)* @tile8.as, i64 0, i64 %12, i64 %13
  %15 = mul nsw i32 %9, %2
  %16 = add i32 %15, %8
  %17 = getelementptr inbounds [8 x [8 x float]], [8 x [8 x float]] addrspace(3)* @tile8.bs, i64 0, i64 %12, i64 %13
  br label %26

18:                                               ; preds = %37, %3
  %19 = phi float [ 0.000000e+00, %3 ], [ %48, %37 ]
  %20 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1) #4
  %21 = sext i32 %2 to i64
  %22 = mul i64 %20, %21
  %23 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %24 = add i64 %22, %23
  %25 = getelementptr inbounds float, float addrspace(1)* %1, i64 %24
  store float %19, float addrspace(1)* %25, align 4, !tbaa !9
  ret void

26:                                               ; preds = %7, %37
  %27 = phi i32 [ 0, %7 ], [ %38, %37 ]
  %28 = phi float [ 0.000000e+00, %7 ], [ %48, %37 ]
  %29 = add i32 %11, %27
  %30 = sext i32 %29 to i64
  %31 = getelementptr inbounds float, float addrspace(1)* %0, i64 %30
  %32 = load float, float addrspace(1)* %31, align 4, !tbaa !9
  store float %32, float addrspace(3)* %14, align 4, !tbaa !9
  %33 = add i32 %16, %27
  %34 = sext i32 %33 to i64
  %35 = getelementptr inbounds float, float addrspace(1)* %0, i64 %34
  %36 = load float, float addrspace(1)* %35, align 4, !tbaa !9
  store float %36, float addrspace(3)* %17, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5
  br label %40

37:                                               ; preds = %40
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5
  %38 = add nuw nsw i32 %27, 8
  %39 = icmp slt i32 %38, %2
  br i1 %39, label %26, label %18, !llvm.loop !16

40:                                               ; preds = %26, %40
  %41 = phi i32 [ 0, %26 ], [ %49, %40 ]
  %42 = phi float [ %28, %26 ], [ %48, %40 ]
  %43 = zext i32 %41 to i64
  %44 = getelementptr inbounds [8 x [8 x float]], [8 x [8 x float]] addrspace(3)* @tile8.as, i64 0, i64 %43, i64 %13
  %45 = load float, float addrspace(3)* %44, align 4, !tbaa !9
  %46 = getelementptr inbounds [8 x [8 x float]], [8 x [8 x float]] addrspace(3)* @tile8.bs, i64 0, i64 %43, i64 %12
  %47 = load float, float addrspace(3)* %46, align 4, !tbaa !9
  %48 = tail call float @llvm.fmuladd.f32(float %45, float %47, float %42)
  %49 = add nuw nsw i32 %41, 1
  %50 = icmp ult i32 %41, 7
  br i1 %50, label %40, label %37, !llvm.loop !17
}

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #4 = { convergent nounwind readnone willreturn }
attributes #5 = { convergent nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 0}
!5 = !{!"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"int"}
!7 = !{!"const", !"", !""}
!8 = !{!"a", !"out", !"n"}
!9 = !{!10, !10, i64 0}
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.unroll.disable"}
!15 = distinct !{!15, !14}
!16 = distinct !{!16, !14}
!17 = distinct !{!17, !14}
