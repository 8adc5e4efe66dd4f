; The kernel becomes a dequeue loop under its own name with the record appended,
; and the grid built-ins read the current virtual group.
; RUN: %opt -load-pass-plugin=%plugin -passes=aos-rewrite -S %s -o - | FileCheck %s
;
; CHECK: @k.aos_slots = internal addrspace(3) global [16 x i32] undef
; CHECK: define dso_local spir_kernel void @k(i32 addrspace(1)* {{.*}}, i32 noundef %1, i8 addrspace(1)* %aos_vndrange) {{.*}}!kernel_arg_addr_space ![[AS:[0-9]+]] {{.*}}!kernel_arg_type ![[TY:[0-9]+]]{{.*}}!accelos.rewritten ![[RW:[0-9]+]]
; CHECK-NEXT: entry:
; CHECK: call spir_func void @aos_rt_init(i8 addrspace(1)* %aos_vndrange
; CHECK: aos.dequeue:
; CHECK: %[[N:[0-9]+]] = call spir_func i32 @aos_rt_dequeue(i8 addrspace(1)* %aos_vndrange, {{.*}}@k.aos_slots{{.*}}, i32 8)
; CHECK: icmp eq i32 %[[N]], 0
; CHECK: aos.run:
; CHECK: call spir_func void @aos_rt_enter(
; CHECK-NOT: @_Z12get_group_idj
; CHECK: call spir_func i64 @aos_rt_group_id(i8* %{{[0-9a-z.]+}}, i32 1)
; CHECK-NOT: @_Z13get_global_idj
; CHECK: call spir_func i64 @aos_rt_global_id(i8* %{{[0-9a-z.]+}}, i32 0)
; CHECK: aos.exit:
; CHECK-NEXT: ret void
; The original body is gone: no second copy, no leftover body function.
; CHECK-NOT: define {{.*}}@k.aos.body
; CHECK-NOT: define {{.*}}@k(
; CHECK-DAG: !accelos.kernels = !{![[REC:[0-9]+]]}
; CHECK-DAG: ![[REC]] = !{!"k", i32 1, i32 8, i32 {{[0-9]+}}, !""}
; CHECK-DAG: ![[AS]] = !{i32 1, i32 0, i32 1}
; CHECK-DAG: ![[TY]] = !{!"int*", !"int", !"struct aos_vndrange*"}
; CHECK-DAG: ![[RW]] = !{i32 8}
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly
define dso_local spir_kernel void @k(i32 addrspace(1)* nocapture noundef writeonly align 4 %0, i32 noundef %1) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
  %3 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 1) #2
  %4 = trunc i64 %3 to i32
  %5 = add nsw i32 %4, %1
  %6 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #2
  %7 = getelementptr inbounds i32, i32 addrspace(1)* %0, i64 %6
  store i32 %5, i32 addrspace(1)* %7, align 4, !tbaa !9
  ret void
}

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

attributes #0 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent nounwind readnone willreturn }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 0}
!5 = !{!"none", !"none"}
!6 = !{!"int*", !"int"}
!7 = !{!"", !""}
!8 = !{!"o", !"n"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
