; Built-ins inside a (noinline) helper are replaced too: the helper is inlined
; into the kernel body first. The helper itself stays for other callers.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK: define dso_local spir_func i64 @where()
; CHECK: define dso_local spir_kernel void @k(
; CHECK-NOT: call {{.*}}@where
; CHECK-NOT: call {{.*}}@_Z13get_global_idj
; CHECK-NOT: call {{.*}}@_Z14get_num_groupsj
; CHECK: call spir_func i64 @aos_rt_global_id(
; CHECK: call spir_func i64 @aos_rt_num_groups(
; CHECK: ret void
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

; Function Attrs: convergent mustprogress nofree noinline norecurse nounwind readnone willreturn
define dso_local spir_func i64 @where() local_unnamed_addr #0 {
  %1 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %2 = tail call spir_func i64 @_Z14get_num_groupsj(i32 noundef 0) #3
  %3 = add i64 %2, %1
  ret i64 %3
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z14get_num_groupsj(i32 noundef) local_unnamed_addr #1

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @k(i64 addrspace(1)* nocapture noundef writeonly align 8 %0) local_unnamed_addr #2 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 !kernel_arg_name !9 {
  %2 = tail call spir_func i64 @where() #4
  %3 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %4 = getelementptr inbounds i64, i64 addrspace(1)* %0, i64 %3
  store i64 %2, i64 addrspace(1)* %4, align 8, !tbaa !10
  ret void
}

attributes #0 = { convergent mustprogress nofree noinline norecurse nounwind readnone willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #3 = { convergent nounwind readnone willreturn }
attributes #4 = { convergent }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1}
!5 = !{!"none"}
!6 = !{!"size_t*"}
!7 = !{!"ulong*"}
!8 = !{!""}
!9 = !{!"o"}
!10 = !{!11, !11, i64 0}
!11 = !{!"long", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C/C++ TBAA"}
