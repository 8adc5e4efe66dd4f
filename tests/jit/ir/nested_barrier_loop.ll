; On SPIR, a loop with a barrier that sits inside another loop stays rolled
; even with a constant trip count (passes/inner_loop_unroll.cpp): unrolled,
; its barrier-free regions all lie in the outer loop, and PoCL saves and
; restores every value the outer loop carries at each of their barriers
; (Parboil's splitSort: 0.71-0.78x native unrolled, 0.98-1.0x rolled). The
; input is the OpenCL C below compiled as the JIT's front end does on SPIR
; (-O2, no vectorizing, -fno-unroll-loops).
;
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-force-unroll-inner-loops)' -S %s -o - \
; RUN:   | FileCheck %s --check-prefix=MARK --implicit-check-not=llvm.loop.unroll.full
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-unroll-inner-loops)' -S %s -o - \
; RUN:   | FileCheck %s --implicit-check-not=llvm.loop.unroll.full
;
; Marking: both loops keep unroll.disable.
; MARK-LABEL: define {{.*}} @nested_const_barrier(
; MARK: br i1 {{.*}}, !llvm.loop ![[INNER:[0-9]+]]
; MARK: br i1 {{.*}}, !llvm.loop ![[OUTER:[0-9]+]]
; MARK-DAG: ![[INNER]] = distinct !{![[INNER]], ![[OFF:[0-9]+]]}
; MARK-DAG: ![[OUTER]] = distinct !{![[OUTER]], ![[OFF]]}
; MARK-DAG: ![[OFF]] = !{!"llvm.loop.unroll.disable"}
;
; Unrolling: the inner loop's six trips stay one loop: three barriers in all
; (one before it, two in it), and both loops still branch back.
; CHECK-LABEL: define {{.*}} @nested_const_barrier(
; CHECK: call spir_func void @_Z7barrierj(i32 noundef 1)
; CHECK: br i1 {{.*}}, !llvm.loop
; CHECK-COUNT-2: call spir_func void @_Z7barrierj(i32 noundef 1)
; CHECK: br i1 {{.*}}, !llvm.loop
; CHECK-NOT: call spir_func void @_Z7barrierj
; CHECK: declare {{.*}} @_Z7barrierj
;
; Source (OpenCL C):
;   kernel void nested_const_barrier(global int *out)
;   {
;   	local int s[64];
;   	uint l = (uint)get_local_id(0);
;   	int v = out[get_global_id(0)];
;   	for (int r = 0; r < 4; r++) {
;   		s[l] = v;
;   		barrier(CLK_LOCAL_MEM_FENCE);
;   		for (uint off = 1; off < 64; off <<= 1) {
;   			int t = l >= off ? s[l - off] : 0;
;   			barrier(CLK_LOCAL_MEM_FENCE);
;   			s[l] += t;
;   			barrier(CLK_LOCAL_MEM_FENCE);
;   		}
;   		v = s[63 - l];
;   	}
;   	out[get_global_id(0)] = v;
;   }
source_filename = "il.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

@nested_const_barrier.s = internal unnamed_addr addrspace(3) global [64 x i32] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @nested_const_barrier(i32 addrspace(1)* nocapture noundef align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #3
  %3 = trunc i64 %2 to i32
  %4 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %5 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %4
  %6 = load i32, i32 addrspace(1)* %5, align 4, !tbaa !9
  %7 = and i64 %2, 4294967295
  %8 = getelementptr inbounds [64 x i32], [64 x i32] addrspace(3)* @nested_const_barrier.s, i64 0, i64 %7
  %9 = sub i32 63, %3
  %10 = zext i32 %9 to i64
  %11 = getelementptr inbounds [64 x i32], [64 x i32] addrspace(3)* @nested_const_barrier.s, i64 0, i64 %10
  br label %13

12:                                               ; preds = %16
  store i32 %17, i32 addrspace(1)* %5, align 4, !tbaa !9
  ret void

13:                                               ; preds = %1, %16
  %14 = phi i32 [ %6, %1 ], [ %17, %16 ]
  %15 = phi i32 [ 0, %1 ], [ %18, %16 ]
  store i32 %14, i32 addrspace(3)* %8, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #4
  br label %20

16:                                               ; preds = %28
  %17 = load i32, i32 addrspace(3)* %11, align 4, !tbaa !9
  %18 = add nuw nsw i32 %15, 1
  %19 = icmp ult i32 %15, 3
  br i1 %19, label %13, label %12, !llvm.loop !13

20:                                               ; preds = %13, %28
  %21 = phi i32 [ 1, %13 ], [ %32, %28 ]
  %22 = icmp ugt i32 %21, %3
  br i1 %22, label %28, label %23

23:                                               ; preds = %20
  %24 = sub i32 %3, %21
  %25 = zext i32 %24 to i64
  %26 = getelementptr inbounds [64 x i32], [64 x i32] addrspace(3)* @nested_const_barrier.s, i64 0, i64 %25
  %27 = load i32, i32 addrspace(3)* %26, align 4, !tbaa !9
  br label %28

28:                                               ; preds = %20, %23
  %29 = phi i32 [ %27, %23 ], [ 0, %20 ]
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #4
  %30 = load i32, i32 addrspace(3)* %8, align 4, !tbaa !9
  %31 = add nsw i32 %30, %29
  store i32 %31, i32 addrspace(3)* %8, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #4
  %32 = shl nuw nsw i32 %21, 1
  %33 = icmp ult i32 %21, 32
  br i1 %33, label %20, label %16, !llvm.loop !15
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent nounwind readnone willreturn }
attributes #4 = { convergent nounwind }

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
!6 = !{!"int*"}
!7 = !{!""}
!8 = !{!"out"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.unroll.disable"}
!15 = distinct !{!15, !14}
