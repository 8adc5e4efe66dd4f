; Local data declared in the kernel stays kernel-scoped: the body is inlined
; into the scheduling kernel, which uses @k.t directly. get_local_id and the
; barrier stay physical.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK: @k.t = internal unnamed_addr addrspace(3) global [8 x i32] undef
; CHECK: define dso_local spir_kernel void @k(
; PoCL workaround: a barrier guards the entry of every loop holding a barrier.
; CHECK: entry:
; CHECK: call spir_func void @aos_rt_init(
; CHECK-NEXT: call spir_func void @_Z7barrierj(i32 1)
; CHECK-NEXT: br label %aos.dequeue
; CHECK: aos.run:
; CHECK: @_Z12get_local_idj(i32 noundef 0)
; CHECK: @k.t
; CHECK: call spir_func void @_Z7barrierj(i32 noundef 1)
; CHECK: @aos_rt_global_id(
; CHECK-NOT: define {{.*}}@k.aos.body
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

@k.t = internal unnamed_addr addrspace(3) global [8 x i32] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @k(i32 addrspace(1)* nocapture noundef writeonly align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %2 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #3
  %3 = getelementptr inbounds [8 x i32], [8 x i32] addrspace(3)* @k.t, i64 0, i64 %2
  store i32 1, i32 addrspace(3)* %3, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #4
  %4 = sub i64 7, %2
  %5 = getelementptr inbounds [8 x i32], [8 x i32] addrspace(3)* @k.t, i64 0, i64 %4
  %6 = load i32, i32 addrspace(3)* %5, align 4, !tbaa !9
  %7 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %8 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %7
  store i32 %6, i32 addrspace(1)* %8, align 4, !tbaa !9
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent
declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent nounwind readnone willreturn }
attributes #4 = { convergent nounwind }

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
