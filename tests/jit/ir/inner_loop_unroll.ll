; On SPIR, innermost loops that contain a barrier or call no function are
; unrolled in full before the rewrite when their trip count is a constant; no
; other loop is (passes/inner_loop_unroll.cpp). The input is the OpenCL C below
; compiled as the JIT's front end does on SPIR (-O2, no vectorizing,
; -fno-unroll-loops, so every loop arrives marked llvm.loop.unroll.disable).
;
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-force-unroll-inner-loops)' -S %s -o - | FileCheck %s --check-prefix=MARK
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-unroll-inner-loops)' -S %s -o - \
; RUN:   | FileCheck %s --implicit-check-not=llvm.loop.unroll.full
; RUN: sed -e 's/^target triple = "spir64"$/target triple = "nvptx64-nvidia-nvcl"/' %s \
; RUN:   | %opt -load-pass-plugin=%plugin -passes='function(aos-unroll-inner-loops)' -S - -o - \
; RUN:   | FileCheck %s --check-prefix=NV --implicit-check-not=llvm.loop.unroll.full
;
; Marking: unroll.disable becomes unroll.full on the innermost loops with a
; barrier or without calls; the loop calling clamp and both loops of a nest
; with a barrier keep unroll.disable (nested_barrier_loop.ll).
; MARK-LABEL: define {{.*}} @const_barrier(
; MARK: br i1 {{.*}}, !llvm.loop ![[L1:[0-9]+]]
; MARK-LABEL: define {{.*}} @const_plain(
; MARK: br i1 {{.*}}, !llvm.loop ![[L2:[0-9]+]]
; MARK-LABEL: define {{.*}} @const_call(
; MARK: br i1 {{.*}}, !llvm.loop ![[C1:[0-9]+]]
; MARK-LABEL: define {{.*}} @runtime_barrier(
; MARK: br i1 {{.*}}, !llvm.loop ![[L3:[0-9]+]]
; MARK-LABEL: define {{.*}} @nested_barrier(
; MARK: br i1 {{.*}}, !llvm.loop ![[OUTER:[0-9]+]]
; MARK: br i1 {{.*}}, !llvm.loop ![[INNER:[0-9]+]]
; MARK-DAG: ![[L1]] = distinct !{![[L1]], ![[FULL:[0-9]+]]}
; MARK-DAG: ![[L2]] = distinct !{![[L2]], ![[FULL]]}
; MARK-DAG: ![[L3]] = distinct !{![[L3]], ![[FULL]]}
; MARK-DAG: ![[C1]] = distinct !{![[C1]], ![[OFF:[0-9]+]]}
; MARK-DAG: ![[INNER]] = distinct !{![[INNER]], ![[OFF]]}
; MARK-DAG: ![[OUTER]] = distinct !{![[OUTER]], ![[OFF]]}
; MARK-DAG: ![[FULL]] = !{!"llvm.loop.unroll.full"}
; MARK-DAG: ![[OFF]] = !{!"llvm.loop.unroll.disable"}
;
; Unrolling: const_barrier's six trips become straight code, one barrier each
; after the first: seven barriers, no loop left.
; CHECK-LABEL: define {{.*}} @const_barrier(
; CHECK-NOT: phi
; CHECK-COUNT-7: call spir_func void @_Z7barrierj(i32 noundef 1)
; CHECK-NOT: phi
; CHECK-NOT: _Z7barrierj
; CHECK: ret void
; The call-free loop's four trips: four loads, no loop.
; CHECK-LABEL: define {{.*}} @const_plain(
; CHECK-NOT: phi
; CHECK-COUNT-4: load float
; CHECK-NOT: phi
; CHECK: ret void
; The loop calling clamp keeps its four trips rolled, for PoCL to vectorize: a
; block that is its own predecessor, one clamp call.
; CHECK-LABEL: define {{.*}} @const_call(
; CHECK: {{^}}[[CH:[0-9]+]]:{{ +}}; preds = %[[CH]],
; CHECK: call spir_func float @_Z5clampfff
; CHECK-NOT: call spir_func float @_Z5clampfff
; CHECK: icmp ult i32 %{{[0-9]+}}, 3
; A trip count known only at run time leaves the loop as it was, marked
; unroll.disable again (checked with the metadata below).
; CHECK-LABEL: define {{.*}} @runtime_barrier(
; CHECK: {{^}}[[RH:[0-9]+]]:{{ +}}; preds = %[[RH]],
; CHECK-COUNT-2: call spir_func void @_Z7barrierj
; CHECK-NOT: _Z7barrierj
; CHECK: br i1 %{{[0-9]+}}, label %[[RH]], label %{{[0-9a-z._]+}}, !llvm.loop ![[RL:[0-9]+]]
; A nest: the inner trip count depends on the outer loop, the outer loop is
; not innermost; both stay.
; CHECK-LABEL: define {{.*}} @nested_barrier(
; CHECK: call spir_func void @_Z7barrierj
; CHECK: br i1 {{.*}}, !llvm.loop
; CHECK: call spir_func void @_Z7barrierj
; CHECK: br i1 {{.*}}, !llvm.loop
; CHECK-NOT: _Z7barrierj
; CHECK-DAG: ![[RL]] = distinct !{![[RL]], ![[OFF:[0-9]+]]}
; CHECK-DAG: ![[OFF]] = !{!"llvm.loop.unroll.disable"}
;
; NVPTX keeps clang's own unrolling decisions: nothing is marked or unrolled.
; NV-LABEL: define {{.*}} @const_barrier(
; NV-COUNT-2: call {{.*}}@_Z7barrierj
; NV-NOT: call {{.*}}@_Z7barrierj
; NV-LABEL: define {{.*}} @const_plain(
; NV: {{^}}[[NH:[0-9]+]]:{{ +}}; preds = %[[NH]],
;
; Source (OpenCL C):
;   kernel void const_barrier(global float *out)
;   {
;   	local float tile[64];
;   	size_t l = get_local_id(0);
;   	tile[l] = out[get_global_id(0)];
;   	barrier(CLK_LOCAL_MEM_FENCE);
;   	for (size_t s = 32; s > 0; s >>= 1) {
;   		if (l < s)
;   			tile[l] += tile[l + s];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   	}
;   	out[get_global_id(0)] = tile[l];
;   }
;   
;   kernel void const_plain(global const float *a, global float *out)
;   {
;   	size_t i = get_global_id(0);
;   	float acc = 0.0f;
;   	for (int k = 0; k < 4; k++)
;   		acc += a[i * 4 + k] * (float)k;
;   	out[i] = acc;
;   }
;   
;   kernel void const_call(global const float *a, global float *out)
;   {
;   	size_t i = get_global_id(0);
;   	float acc = 0.0f;
;   	for (int k = 0; k < 4; k++)
;   		acc += clamp(a[i * 4 + k], 0.0f, 1.0f);
;   	out[i] = acc;
;   }
;   
;   kernel void runtime_barrier(global float *out, int n)
;   {
;   	local float tile[64];
;   	size_t l = get_local_id(0);
;   	float acc = 0.0f;
;   	for (int t = 0; t < n; t++) {
;   		tile[l] = out[get_global_id(0) + t];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   		acc += tile[63 - l];
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   	}
;   	out[get_global_id(0)] = acc;
;   }
;   
;   kernel void nested_barrier(global int *out)
;   {
;   	local int s[64];
;   	uint l = (uint)get_local_id(0);
;   	s[l] = out[get_global_id(0)];
;   	barrier(CLK_LOCAL_MEM_FENCE);
;   	for (uint k = 2; k <= 64; k <<= 1)
;   		for (uint j = k >> 1; j > 0; j >>= 1) {
;   			uint p = l ^ j;
;   			if (p > l && s[l] > s[p])
;   				s[l] = s[p];
;   			barrier(CLK_LOCAL_MEM_FENCE);
;   		}
;   	out[get_global_id(0)] = s[l];
;   }
source_filename = "il.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

@const_barrier.tile = internal unnamed_addr addrspace(3) global [64 x float] undef, align 4
@runtime_barrier.tile = internal unnamed_addr addrspace(3) global [64 x float] undef, align 4
@nested_barrier.s = internal unnamed_addr addrspace(3) global [64 x i32] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @const_barrier(float addrspace(1)* nocapture noundef align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #5
  %3 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %4 = getelementptr inbounds float, float addrspace(1)* %0, i64 %3
  %5 = load float, float addrspace(1)* %4, align 4, !tbaa !9
  %6 = getelementptr inbounds [64 x float], [64 x float] addrspace(3)* @const_barrier.tile, i64 0, i64 %2
  store float %5, float addrspace(3)* %6, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  br label %9

7:                                                ; preds = %18
  %8 = load float, float addrspace(3)* %6, align 4, !tbaa !9
  store float %8, float addrspace(1)* %4, align 4, !tbaa !9
  ret void

9:                                                ; preds = %1, %18
  %10 = phi i64 [ 32, %1 ], [ %19, %18 ]
  %11 = icmp ult i64 %2, %10
  br i1 %11, label %12, label %18

12:                                               ; preds = %9
  %13 = add i64 %10, %2
  %14 = getelementptr inbounds [64 x float], [64 x float] addrspace(3)* @const_barrier.tile, i64 0, i64 %13
  %15 = load float, float addrspace(3)* %14, align 4, !tbaa !9
  %16 = load float, float addrspace(3)* %6, align 4, !tbaa !9
  %17 = fadd float %15, %16
  store float %17, float addrspace(3)* %6, align 4, !tbaa !9
  br label %18

18:                                               ; preds = %12, %9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  %19 = lshr i64 %10, 1
  %20 = icmp ult i64 %10, 2
  br i1 %20, label %7, label %9, !llvm.loop !13
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

; Function Attrs: argmemonly convergent nofree norecurse nounwind
define dso_local spir_kernel void @const_plain(float addrspace(1)* nocapture noundef readonly align 4 %0, float addrspace(1)* nocapture noundef writeonly align 4 %1) local_unnamed_addr #3 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !17 !kernel_arg_base_type !17 !kernel_arg_type_qual !18 !kernel_arg_name !19 {
  %3 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %4 = shl i64 %3, 2
  br label %7

5:                                                ; preds = %7
  %6 = getelementptr inbounds float, float addrspace(1)* %1, i64 %3
  store float %15, float addrspace(1)* %6, align 4, !tbaa !9
  ret void

7:                                                ; preds = %2, %7
  %8 = phi i32 [ 0, %2 ], [ %16, %7 ]
  %9 = phi float [ 0.000000e+00, %2 ], [ %15, %7 ]
  %10 = zext i32 %8 to i64
  %11 = add nuw i64 %4, %10
  %12 = getelementptr inbounds float, float addrspace(1)* %0, i64 %11
  %13 = load float, float addrspace(1)* %12, align 4, !tbaa !9
  %14 = sitofp i32 %8 to float
  %15 = tail call float @llvm.fmuladd.f32(float %13, float %14, float %9)
  %16 = add nuw nsw i32 %8, 1
  %17 = icmp ult i32 %8, 3
  br i1 %17, label %7, label %5, !llvm.loop !20
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn
declare float @llvm.fmuladd.f32(float, float, float) #4

; Function Attrs: argmemonly convergent nofree norecurse nounwind
define dso_local spir_kernel void @const_call(float addrspace(1)* nocapture noundef readonly align 4 %0, float addrspace(1)* nocapture noundef writeonly align 4 %1) local_unnamed_addr #3 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !17 !kernel_arg_base_type !17 !kernel_arg_type_qual !18 !kernel_arg_name !19 {
  %3 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %4 = shl i64 %3, 2
  br label %7

5:                                                ; preds = %7
  %6 = getelementptr inbounds float, float addrspace(1)* %1, i64 %3
  store float %15, float addrspace(1)* %6, align 4, !tbaa !9
  ret void

7:                                                ; preds = %2, %7
  %8 = phi i32 [ 0, %2 ], [ %16, %7 ]
  %9 = phi float [ 0.000000e+00, %2 ], [ %15, %7 ]
  %10 = zext i32 %8 to i64
  %11 = add nuw i64 %4, %10
  %12 = getelementptr inbounds float, float addrspace(1)* %0, i64 %11
  %13 = load float, float addrspace(1)* %12, align 4, !tbaa !9
  %14 = tail call spir_func float @_Z5clampfff(float noundef %13, float noundef 0.000000e+00, float noundef 1.000000e+00) #5
  %15 = fadd float %9, %14
  %16 = add nuw nsw i32 %8, 1
  %17 = icmp ult i32 %8, 3
  br i1 %17, label %7, label %5, !llvm.loop !21
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func float @_Z5clampfff(float noundef, float noundef, float noundef) local_unnamed_addr #1

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @runtime_barrier(float addrspace(1)* nocapture noundef align 4 %0, i32 noundef %1) local_unnamed_addr #0 !kernel_arg_addr_space !22 !kernel_arg_access_qual !16 !kernel_arg_type !23 !kernel_arg_base_type !23 !kernel_arg_type_qual !24 !kernel_arg_name !25 {
  %3 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #5
  %4 = icmp sgt i32 %1, 0
  br i1 %4, label %5, label %9

5:                                                ; preds = %2
  %6 = getelementptr inbounds [64 x float], [64 x float] addrspace(3)* @runtime_barrier.tile, i64 0, i64 %3
  %7 = sub i64 63, %3
  %8 = getelementptr inbounds [64 x float], [64 x float] addrspace(3)* @runtime_barrier.tile, i64 0, i64 %7
  br label %13

9:                                                ; preds = %13, %2
  %10 = phi float [ 0.000000e+00, %2 ], [ %22, %13 ]
  %11 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %12 = getelementptr inbounds float, float addrspace(1)* %0, i64 %11
  store float %10, float addrspace(1)* %12, align 4, !tbaa !9
  ret void

13:                                               ; preds = %5, %13
  %14 = phi i32 [ 0, %5 ], [ %23, %13 ]
  %15 = phi float [ 0.000000e+00, %5 ], [ %22, %13 ]
  %16 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %17 = zext i32 %14 to i64
  %18 = add i64 %16, %17
  %19 = getelementptr inbounds float, float addrspace(1)* %0, i64 %18
  %20 = load float, float addrspace(1)* %19, align 4, !tbaa !9
  store float %20, float addrspace(3)* %6, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  %21 = load float, float addrspace(3)* %8, align 4, !tbaa !9
  %22 = fadd float %15, %21
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  %23 = add nuw nsw i32 %14, 1
  %24 = icmp slt i32 %23, %1
  br i1 %24, label %13, label %9, !llvm.loop !26
}

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @nested_barrier(i32 addrspace(1)* nocapture noundef align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !27 !kernel_arg_base_type !27 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #5
  %3 = trunc i64 %2 to i32
  %4 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %5 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %4
  %6 = load i32, i32 addrspace(1)* %5, align 4, !tbaa !28
  %7 = and i64 %2, 4294967295
  %8 = getelementptr inbounds [64 x i32], [64 x i32] addrspace(3)* @nested_barrier.s, i64 0, i64 %7
  store i32 %6, i32 addrspace(3)* %8, align 4, !tbaa !28
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  br label %9

9:                                                ; preds = %13, %1
  %10 = phi i32 [ 2, %1 ], [ %14, %13 ]
  br label %16

11:                                               ; preds = %13
  %12 = load i32, i32 addrspace(3)* %8, align 4, !tbaa !28
  store i32 %12, i32 addrspace(1)* %5, align 4, !tbaa !28
  ret void

13:                                               ; preds = %28
  %14 = shl i32 %10, 1
  %15 = icmp ult i32 %14, 65
  br i1 %15, label %9, label %11, !llvm.loop !30

16:                                               ; preds = %9, %28
  %17 = phi i32 [ %18, %28 ], [ %10, %9 ]
  %18 = lshr i32 %17, 1
  %19 = xor i32 %18, %3
  %20 = icmp ugt i32 %19, %3
  br i1 %20, label %21, label %28

21:                                               ; preds = %16
  %22 = load i32, i32 addrspace(3)* %8, align 4, !tbaa !28
  %23 = zext i32 %19 to i64
  %24 = getelementptr inbounds [64 x i32], [64 x i32] addrspace(3)* @nested_barrier.s, i64 0, i64 %23
  %25 = load i32, i32 addrspace(3)* %24, align 4, !tbaa !28
  %26 = icmp sgt i32 %22, %25
  br i1 %26, label %27, label %28

27:                                               ; preds = %21
  store i32 %25, i32 addrspace(3)* %8, align 4, !tbaa !28
  br label %28

28:                                               ; preds = %27, %21, %16
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6
  %29 = icmp ult i32 %17, 4
  br i1 %29, label %13, label %16, !llvm.loop !31
}

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { argmemonly convergent nofree norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #4 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #5 = { convergent nounwind readnone willreturn }
attributes #6 = { convergent nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1}
!5 = !{!"none"}
!6 = !{!"float*"}
!7 = !{!""}
!8 = !{!"out"}
!9 = !{!10, !10, i64 0}
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.unroll.disable"}
!15 = !{i32 1, i32 1}
!16 = !{!"none", !"none"}
!17 = !{!"float*", !"float*"}
!18 = !{!"const", !""}
!19 = !{!"a", !"out"}
!20 = distinct !{!20, !14}
!21 = distinct !{!21, !14}
!22 = !{i32 1, i32 0}
!23 = !{!"float*", !"int"}
!24 = !{!"", !""}
!25 = !{!"out", !"n"}
!26 = distinct !{!26, !14}
!27 = !{!"int*"}
!28 = !{!29, !29, i64 0}
!29 = !{!"int", !11, i64 0}
!30 = distinct !{!30, !14}
!31 = distinct !{!31, !14}
