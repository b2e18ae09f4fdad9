//go:build !purego

#include "textflag.h"

// LINEENDS(y) turns the 32 bytes in y into 0xFF where a byte is LF or CR
// and 0 elsewhere, using Y1 (LF in every byte), Y2 (CR) and Y15.
#define LINEENDS(y) \
	VPCMPEQB y, Y2, Y15 \
	VPCMPEQB y, Y1, y   \
	VPOR     Y15, y, y

// func lineEndAVX2(p *byte, n int) int
TEXT ·lineEndAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ SI, DI                // the start, for the result
	LEAQ -32(SI)(CX*1), R8     // the start of the last whole block
	// VMOVD, not MOVD: a legacy SSE instruction after Y1 is written
	// leaves the upper halves dirty under SSE code, which Intel cores
	// (not AMD's) answer with a penalty that made this 7x slower than
	// the scalar search.
	MOVL $0x0A0A0A0A, AX
	VMOVD AX, X1
	VPBROADCASTD X1, Y1        // LF in every byte
	MOVL $0x0D0D0D0D, AX
	VMOVD AX, X2
	VPBROADCASTD X2, Y2        // CR in every byte

	// 128 bytes at a time while they last. A line of an LLM stream is a
	// few hundred bytes, so the search for its end runs this loop a few
	// times and leaves it at the same turn line after line: the branch is
	// predicted, where the 64-byte loop's exit, at a turn that varies with
	// the line's length, costs a misprediction per line. Which of the 128
	// bytes is the first line end is then worked out without branches.
	LEAQ -128(SI)(CX*1), R11
loop128:
	CMPQ      SI, R11
	JA        rest64
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y3
	VMOVDQU   64(SI), Y4
	VMOVDQU   96(SI), Y5
	LINEENDS(Y0)
	LINEENDS(Y3)
	LINEENDS(Y4)
	LINEENDS(Y5)
	VPOR      Y0, Y3, Y10
	VPOR      Y4, Y5, Y11
	VPOR      Y10, Y11, Y10
	VPTEST    Y10, Y10
	JNZ       found128
	ADDQ      $128, SI
	JMP       loop128

	// The masks of the four blocks, two to a 64-bit word, then the first
	// set bit: BSF sets ZF for a zero word, so the CMOV takes the first
	// word's bit only when it has one.
found128:
	VPMOVMSKB Y0, AX
	VPMOVMSKB Y3, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	VPMOVMSKB Y4, BX
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, BX
	BSFQ      BX, R13
	ADDQ      $64, R13
	BSFQ      AX, R12
	CMOVQNE   R12, R13
	SUBQ      DI, SI
	LEAQ      (SI)(R13*1), AX
	MOVQ      AX, ret+16(FP)
	VZEROUPPER
	RET

	// 64 bytes at a time while they last: one test for both halves.
rest64:
	LEAQ -64(DI)(CX*1), R10
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
