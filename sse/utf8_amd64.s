//go:build !purego

#include "textflag.h"

// Offsets into utf8Vectors (utf8_amd64.go).
#define V_FIRST 0
#define V_FIRSTLOW 16
#define V_SECOND 32
#define V_LOWNIBBLES 48
#define V_THIRD 80
#define V_FOURTH 112
#define V_HIGH 144
#define V_UNCUT 176

// CHECK(in, prev, out) checks the 32 bytes in `in`, the block before being
// in `prev`, and leaves in `out` a nonzero byte for each byte that is part
// of an ill-formed sequence. It uses Y4-Y9 and the constants in Y10-Y15
// and (DX). Step by step:
//   - Y4 is prev's high lane and in's low lane, so that VPALIGNR, which
//     works within 128-bit lanes, can give the bytes one, two and three
//     back (Y5, Y6, Y7);
//   - Y8 is the three table lookups ANDed: the kinds of bad pair that the
//     byte one back and each byte make;
//   - Y6 becomes 0x80 where the byte two back is >= 0xE0 or the byte three
//     back is >= 0xF0 (saturating subtraction leaves >= 0x80 exactly
//     there): where a continuation byte must come;
//   - XORing it flips the continuation-after-continuation bit, so that
//     pair is bad unless one must come, and a byte that must be a
//     continuation but is not is bad too.
#define CHECK(in, prev, out) \
	VPERM2I128 $0x21, in, prev, Y4 \
	VPALIGNR   $15, Y4, in, Y5     \
	VPALIGNR   $14, Y4, in, Y6     \
	VPALIGNR   $13, Y4, in, Y7     \
	VPSRLW     $4, Y5, Y8          \
	VPAND      Y13, Y8, Y8         \
	VPSHUFB    Y8, Y10, Y8         \
	VPAND      Y13, Y5, Y9         \
	VPSHUFB    Y9, Y11, Y9         \
	VPAND      Y9, Y8, Y8          \
	VPSRLW     $4, in, Y9          \
	VPAND      Y13, Y9, Y9         \
	VPSHUFB    Y9, Y12, Y9         \
	VPAND      Y9, Y8, Y8          \
	VPSUBUSB   Y14, Y6, Y6         \
	VPSUBUSB   Y15, Y7, Y7         \
	VPOR       Y7, Y6, Y6          \
	VPAND      V_HIGH(DX), Y6, Y6  \
	VPXOR      Y6, Y8, out

// func validBlocksAVX2(p *byte, n int, v *utf8Vectors) int
TEXT ·validBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ v+16(FP), DX
	MOVQ SI, DI // the start, for the result

	VBROADCASTI128 V_FIRST(DX), Y10
	VBROADCASTI128 V_FIRSTLOW(DX), Y11
	VBROADCASTI128 V_SECOND(DX), Y12
	VMOVDQU        V_LOWNIBBLES(DX), Y13
	VMOVDQU        V_THIRD(DX), Y14
	VMOVDQU        V_FOURTH(DX), Y15
	VPXOR          Y0, Y0, Y0 // the block before: none, which checks as ASCII does

	// Runs of ASCII cost one test per 64 bytes. The block before needs no
	// keeping here: for the check, any ASCII block is as good as zeros.
ascii:
	CMPQ      CX, $64
	JB        tail
	VMOVDQU   0(SI), Y2
	VMOVDQU   32(SI), Y3
	VPOR      Y2, Y3, Y4
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       mixed
	ADDQ      $64, SI
	SUBQ      $64, CX
	JMP       ascii

	// 64 bytes with some non-ASCII in Y2 and Y3, the block before in Y0.
	// One test for both halves: on failure the scalar code looks again
	// from the first.
mixed:
	CHECK(Y2, Y0, Y1)
	CHECK(Y3, Y2, Y8)
	VPOR      Y1, Y8, Y8
	VPTEST    Y8, Y8
	JNZ       done
	VMOVDQU   Y3, Y0
	ADDQ      $64, SI
	SUBQ      $64, CX

	// After mixed bytes, 64 bytes of ASCII are right unless the block
	// before ends in a cut sequence.
	CMPQ      CX, $64
	JB        tail
	VMOVDQU   0(SI), Y2
	VMOVDQU   32(SI), Y3
	VPOR      Y2, Y3, Y4
	VPMOVMSKB Y4, AX
	TESTL     AX, AX
	JNZ       mixed
	VPSUBUSB  V_UNCUT(DX), Y0, Y1
	VPTEST    Y1, Y1
	JNZ       done
	VPXOR     Y0, Y0, Y0
	ADDQ      $64, SI
	SUBQ      $64, CX
	JMP       ascii

	// Fewer than 64 bytes left: one more block of 32 if there is one.
tail:
	CMPQ    CX, $32
	JB      done
	VMOVDQU 0(SI), Y2
	CHECK(Y2, Y0, Y8)
	VPTEST  Y8, Y8
	JNZ     done
	ADDQ    $32, SI

done:
	SUBQ       DI, SI
	MOVQ       SI, ret+24(FP)
	VZEROUPPER
	RET
