; The SPIR module's last step: X - (X / Y) * Y, as clang's -O2 leaves a
; remainder whose quotient is also used (DivRemPairs, for a target without a
; divide-and-remainder instruction), becomes X % Y again; the quotient stays.
; Anything else that looks like it stays as it is (passes/rem_recompose.cpp).
;
; RUN: %opt -load-pass-plugin=%plugin -passes='function(aos-recompose-rem)' -S %s -o - | FileCheck %s
target triple = "spir64"

; CHECK-LABEL: define i32 @signed(
; CHECK-NEXT: %q = sdiv i32 %x, %y
; CHECK-NEXT: store i32 %q, i32* %p
; CHECK-NEXT: %r.rem = srem i32 %x, %y
; CHECK-NEXT: ret i32 %r.rem
define i32 @signed(i32 %x, i32 %y, i32* %p) {
  %q = sdiv i32 %x, %y
  store i32 %q, i32* %p
  %m = mul nsw i32 %q, %y
  %r = sub nsw i32 %x, %m
  ret i32 %r
}

; The factors in the other order, unsigned, a multiply with another use kept.
; CHECK-LABEL: define i64 @unsigned_commuted(
; CHECK: %m = mul i64 %y, %q
; CHECK-NEXT: %r.rem = urem i64 %x, %y
; CHECK-NEXT: %s = add i64 %r.rem, %m
define i64 @unsigned_commuted(i64 %x, i64 %y) {
  %q = udiv i64 %x, %y
  %m = mul i64 %y, %q
  %r = sub i64 %x, %m
  %s = add i64 %r, %m
  ret i64 %s
}

; CHECK-LABEL: define <4 x i32> @vector(
; CHECK-NOT: mul
; CHECK: %r.rem = srem <4 x i32> %x, %y
define <4 x i32> @vector(<4 x i32> %x, <4 x i32> %y, <4 x i32>* %p) {
  %q = sdiv <4 x i32> %x, %y
  store <4 x i32> %q, <4 x i32>* %p
  %m = mul <4 x i32> %q, %y
  %r = sub <4 x i32> %x, %m
  ret <4 x i32> %r
}

; Not a remainder: another divisor, another dividend.
; CHECK-LABEL: define i32 @not_a_remainder(
; CHECK-NOT: rem
; CHECK: ret i32
define i32 @not_a_remainder(i32 %x, i32 %y, i32 %z) {
  %q = sdiv i32 %x, %y
  %m = mul i32 %q, %z
  %r = sub i32 %x, %m
  %m2 = mul i32 %q, %y
  %r2 = sub i32 %z, %m2
  %s = add i32 %r, %r2
  ret i32 %s
}
