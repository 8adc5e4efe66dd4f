; NVPTX: the kernel annotation follows the new scheduling kernel, and the direct
; kernel gets its own (without one the back end emits a function, not an entry).
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
; Without direct twins (AOS_REWRITE_NO_DIRECT: a device that runs the loop shape), one entry.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite-loop-only -S %s -o - \
; RUN:   | FileCheck %s --check-prefix=LOOP --implicit-check-not=aos_direct
; LOOP: define dso_local spir_kernel void @k(ptr addrspace(1) {{.*}}, ptr addrspace(1) %aos_vndrange)
; LOOP: !nvvm.annotations = !{![[LANN:[0-9]+]]}
; LOOP: ![[LANN]] = !{ptr @k, !"kernel", i32 1}
;
; CHECK: define dso_local spir_kernel void @k(ptr addrspace(1) {{.*}}, ptr addrspace(1) %aos_vndrange)
; CHECK: call i32 @aos_rt_dequeue(ptr addrspace(1) %aos_vndrange, ptr addrspace(3) @k.aos_slots
; CHECK: define dso_local spir_kernel void @aos_direct_k(ptr addrspace(1) {{.*}}, ptr {{.*}}byval(%struct.aos_direct_grid) align 8 %aos_grid)
; CHECK: !nvvm.annotations = !{![[ANN:[0-9]+]], ![[DANN:[0-9]+]]}
; CHECK-DAG: ![[ANN]] = !{ptr @k, !"kernel", i32 1}
; CHECK-DAG: ![[DANN]] = !{ptr @aos_direct_k, !"kernel", i32 1}
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

; Function Attrs: argmemonly convergent mustprogress nofree noinline norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @k(ptr addrspace(1) nocapture noundef writeonly align 4 %0) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 !kernel_arg_name !9 {
  %2 = tail call i64 @_Z12get_group_idj(i32 noundef 0) #2
  %3 = trunc i64 %2 to i32
  %4 = tail call i64 @_Z13get_global_idj(i32 noundef 0) #2
  %5 = getelementptr inbounds i32, ptr addrspace(1) %0, i64 %4
  store i32 %3, ptr addrspace(1) %5, align 4, !tbaa !10
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

attributes #0 = { argmemonly convergent mustprogress nofree noinline norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx75,+sm_20" "uniform-work-group-size"="false" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx75,+sm_20" }
attributes #2 = { convergent nounwind readnone willreturn }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2}
!opencl.ocl.version = !{!3}

!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"frame-pointer", i32 2}
!3 = !{i32 2, i32 0}
!4 = !{!"Debian clang version 15.0.6"}
!5 = !{i32 1}
!6 = !{!"none"}
!7 = !{!"int*"}
!8 = !{!""}
!9 = !{!"o"}
!10 = !{!11, !11, i64 0}
!11 = !{!"int", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C/C++ TBAA"}
