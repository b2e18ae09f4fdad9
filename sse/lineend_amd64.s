//go:build !purego

#include "textflag.h"

// func lineEndAVX2(p *byte, n int) int
TEXT ·lineEndAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ SI, DI                // the start, for the result
	LEAQ -32(SI)(CX*1), R8     // the start of the last whole block
	MOVL $0x0A0A0A0A, AX
	MOVD AX, X1
	VPBROADCASTD X1, Y1        // LF in every byte
	MOVL $0x0D0D0D0D, AX
	MOVD AX, X2
	VPBROADCASTD X2, Y2        // CR in every byte

	// 64 bytes at a time while they last: one test for both halves.
	LEAQ -64(SI)(CX*1), R10
loop64:
	CMPQ      SI, R10
	JA        loop
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y5
	VPCMPEQB  Y0, Y1, Y3
	VPCMPEQB  Y0, Y2, Y4
	VPCMPEQB  Y5, Y1, Y6
	VPCMPEQB  Y5, Y2, Y7
	VPOR      Y3, Y4, Y3
	VPOR      Y6, Y7, Y6
	VPOR      Y3, Y6, Y8
	VPMOVMSKB Y8, AX
	TESTL     AX, AX
	JNZ       found64
	ADDQ      $64, SI
	JMP       loop64

found64:
	VPMOVMSKB Y3, AX
	TESTL     AX, AX
	JNZ       found
	VPMOVMSKB Y6, AX
	ADDQ      $32, SI
	JMP       found

	// Then one block of 32, if 32 to 63 bytes are left.
loop:
	CMPQ      SI, R8
	JA        last
	VMOVDQU   (SI), Y0
	VPCMPEQB  Y0, Y1, Y3
	VPCMPEQB  Y0, Y2, Y4
	VPOR      Y3, Y4, Y3
	VPMOVMSKB Y3, AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, SI
	JMP       loop

	// Fewer than 32 bytes left, all after R8: search the last 32 bytes
	// again and drop the bits of those before SI, already searched.
last:
	LEAQ      (DI)(CX*1), R9
	CMPQ      SI, R9
	JAE       none
	VMOVDQU   (R8), Y0
	VPCMPEQB  Y0, Y1, Y3
	VPCMPEQB  Y0, Y2, Y4
	VPOR      Y3, Y4, Y3
	VPMOVMSKB Y3, AX
	MOVQ      SI, CX
	SUBQ      R8, CX
	SHRL      CX, AX
	TESTL     AX, AX
	JZ        none

found:
	BSFL       AX, AX
	SUBQ       DI, SI
	ADDQ       SI, AX
	MOVQ       AX, ret+16(FP)
	VZEROUPPER
	RET

none:
	MOVQ       $-1, ret+16(FP)
	VZEROUPPER
	RET
