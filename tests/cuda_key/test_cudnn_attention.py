"""cuDNN's attention on the CUDA key: F.scaled_dot_product_attention chooses its kernel as
stock's CUDA build with cuDNN does (_fused_sdp_choice: cuDNN first on compute capability 9.0
and 10.x, which the simulated device reports, for half and bfloat16 within cuDNN's limits;
torch's math attention otherwise, or where torch.nn.attention.sdpa_kernel and
torch.backends.cuda say so), and _scaled_dot_product_cudnn_attention with its backward are
cuDNN frontend graphs (sdpa, sdpa_backward) that agree with the CPU: causal (top left, also
over a longer key), boolean and additive masks, grouped-query attention, transposed layouts,
a transformer block's step. Dropout draws its mask from the default generator as stock's
cuDNN attention does (seed and offset handed to backward, the generator advanced by one draw
per score, fresh masks at each replay of a captured graph); with the mask read back (the
value the identity), output and gradients agree with the CPU's attention under that mask.

On the simulated variant the graphs run on the host with cuDNN's semantics (the softmax's
probabilities rounded to the data type before the second product), so a wrong stride, head
grouping or mask fails here. Everything runs with TORCH_CUDA_FALLBACK=error.
"""

from __future__ import annotations

import unittest
import warnings

import torch
import torch.nn.functional as F
from library_calls import RECORDED, LibraryCalls
from no_fallback import NoFallbackCase
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

CUDNN, MATH = 3, 0  # at::SDPBackend's values, as _fused_sdp_choice answers
TOLERANCE = {torch.float16: 4e-3, torch.bfloat16: 3e-2}
# Stock prefers cuDNN's attention on compute capability 9.0 and 10.x (the simulated device
# reports the newest built architecture, 10.0).
CAPABILITY = torch.cuda.get_device_capability()
PREFERS_CUDNN = CAPABILITY == (9, 0) or CAPABILITY[0] == 10
NAMES = ("math", "flash", "mem_efficient", "cudnn")
NOT_PREFERRED = f"stock tries cuDNN first on sm90 and sm10x only; this device is sm{CAPABILITY}"


def qkv(
    dtype: torch.dtype = torch.float16,
    heads: int = 4,
    kv_heads: int | None = None,
    s_q: int = 16,
    s_kv: int | None = None,
    d: int = 32,
) -> list[torch.Tensor]:
    """Query, key and value on the CPU, their values exact in `dtype`."""
    kv_heads, s_kv = kv_heads or heads, s_kv or s_q
    shapes = [(2, heads, s_q, d), (2, kv_heads, s_kv, d), (2, kv_heads, s_kv, d)]
    return [torch.randn(shape).to(dtype) for shape in shapes]


class AttentionTestCase(NoFallbackCase):

    def choice(self, tensors: list[torch.Tensor], **kwargs: object) -> int:
        return torch._fused_sdp_choice(*(t.cuda() for t in tensors), **kwargs)


@unittest.skipUnless(PREFERS_CUDNN, NOT_PREFERRED)
class ChoosesAsStock(AttentionTestCase):
    def test_cudnn_for_half_and_bfloat16(self) -> None:
        for dtype in (torch.float16, torch.bfloat16):
            with self.subTest(dtype=dtype):
                self.assertEqual(self.choice(qkv(dtype)), CUDNN)
                grouped = qkv(dtype, heads=4, kv_heads=2)
                self.assertEqual(self.choice(grouped, enable_gqa=True), CUDNN)
                self.assertEqual(self.choice(qkv(dtype), dropout_p=0.1), CUDNN)

    def test_math_otherwise(self) -> None:
        cases = {
            "float32": (qkv(torch.float32), {}),
            "head dim 20": (qkv(d=20), {}),
            "head dim 264": (qkv(d=264), {}),
            "key length 1": (qkv(s_kv=1), {}),
            "grouped without enable_gqa": (qkv(heads=4, kv_heads=2), {}),
        }
        for name, (tensors, kwargs) in cases.items():
            with self.subTest(name):
                self.assertEqual(self.choice(tensors, **kwargs), MATH)

    def test_the_user_chooses(self) -> None:
        tensors = qkv()
        with sdpa_kernel([SDPBackend.MATH]):
            self.assertEqual(self.choice(tensors), MATH)
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION], set_priority=True):
            self.assertEqual(self.choice(tensors), MATH)
        torch.backends.cuda.enable_cudnn_sdp(False)
        try:
            self.assertEqual(self.choice(tensors), MATH)
        finally:
            torch.backends.cuda.enable_cudnn_sdp(True)

    def test_no_available_kernel(self) -> None:
        q, k, v = (t.cuda() for t in qkv(torch.float32))
        with (
            sdpa_kernel([SDPBackend.CUDNN_ATTENTION]),
            warnings.catch_warnings(record=True) as caught,
            self.assertRaisesRegex(RuntimeError, "No available kernel"),
        ):
            warnings.simplefilter("always")
            F.scaled_dot_product_attention(q, k, v)
        reasons = " ".join(str(w.message) for w in caught)
        self.assertIn("cuDNN attention kernel not used because", reasons)
        self.assertIn("Half, BFloat16", reasons)

    def test_no_viable_backend(self) -> None:
        toggles = [getattr(torch.backends.cuda, f"enable_{n}_sdp") for n in NAMES]
        for toggle in toggles:
            toggle(False)
        try:
            with self.assertRaisesRegex(RuntimeError, "No viable backend"):
                self.choice(qkv())
        finally:
            for toggle in toggles:
                toggle(True)


def on_both(
    tensors: list[torch.Tensor], grad: torch.Tensor, **kwargs: object
) -> tuple[list[torch.Tensor], list[torch.Tensor], dict[str, int]]:
    """Output and gradients on the CUDA key and, in float32, on the CPU."""
    mask = kwargs.pop("attn_mask", None)
    results = []
    calls: dict[str, int] = {}
    for device in ("cuda", "cpu"):
        leaves = [
            (t.to(device) if device == "cuda" else t.float()).requires_grad_() for t in tensors
        ]
        m = mask
        if mask is not None and device == "cuda":
            m = mask.cuda()
        elif mask is not None and mask.dtype != torch.bool:
            m = mask.float()
        with LibraryCalls() as recorded:
            out = F.scaled_dot_product_attention(*leaves, attn_mask=m, **kwargs)
            out.backward(grad.to(device, out.dtype))
        calls = recorded.made if device == "cuda" else calls
        results.append([out.detach().cpu().float()] + [t.grad.cpu().float() for t in leaves])
    return results[0], results[1], calls


@unittest.skipUnless(PREFERS_CUDNN, NOT_PREFERRED)
class AgreesWithTheCpu(AttentionTestCase):
    def check(self, tensors: list[torch.Tensor], **kwargs: object) -> None:
        on_gpu = {k: v.cuda() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        self.assertEqual(self.choice(tensors, **on_gpu), CUDNN, "cuDNN was not chosen")
        tol = TOLERANCE[tensors[0].dtype]
        grad = torch.randn(*tensors[0].shape[:3], tensors[2].shape[-1])
        got, want, calls = on_both(tensors, grad, **kwargs)
        for name, g, w in zip(("output", "dq", "dk", "dv"), got, want, strict=True):
            torch.testing.assert_close(g, w, atol=tol, rtol=tol, msg=lambda m, n=name: f"{n}: {m}")
        if RECORDED:
            self.assertEqual(calls.get("cudnn_frontend::sdpa"), 1)
            self.assertEqual(calls.get("cudnn_frontend::sdpa_backward"), 1)

    def test_plain_and_causal(self) -> None:
        for dtype in (torch.float16, torch.bfloat16):
            for causal in (False, True):
                with self.subTest(dtype=dtype, causal=causal):
                    self.check(qkv(dtype), is_causal=causal)

    def test_causal_over_a_longer_key(self) -> None:
        self.check(qkv(s_q=8, s_kv=24), is_causal=True)

    def test_masks(self) -> None:
        bool_mask = torch.rand(2, 1, 16, 16) > 0.3
        bool_mask[..., 0] = True  # every row sees a key
        self.check(qkv(), attn_mask=bool_mask)
        self.check(qkv(), attn_mask=torch.randn(16, 16).half())
        # A float32 mask on half attention, as stock takes it (converted for cuDNN).
        self.check(qkv(), attn_mask=torch.randn(1, 4, 16, 16).half().float())

    def test_grouped_query(self) -> None:
        self.check(qkv(heads=4, kv_heads=2), enable_gqa=True)

    def test_transposed_layout(self) -> None:
        # (B, S, H, D) memory, as a projection's output viewed per head.
        tensors = [t.transpose(1, 2).contiguous().transpose(1, 2) for t in qkv()]
        self.assertFalse(tensors[0].is_contiguous())
        self.check(tensors, is_causal=True)

    def test_a_transformer_block(self) -> None:
        class Block(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.qkv, self.proj = nn.Linear(64, 192), nn.Linear(64, 64)
                self.norm = nn.LayerNorm(64)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                q, k, v = self.qkv(x).view(2, 16, 3, 4, 16).unbind(2)
                heads = [t.transpose(1, 2) for t in (q, k, v)]
                y = F.scaled_dot_product_attention(*heads, is_causal=True)
                return self.norm(x + self.proj(y.transpose(1, 2).reshape(2, 16, 64)))

        block = Block().half()
        x = torch.randn(2, 16, 64).half()
        reference = Block()
        reference.load_state_dict({k: v.float() for k, v in block.state_dict().items()})
        cuda = block.cuda()
        with LibraryCalls() as calls:
            loss = cuda(x.cuda()).float().pow(2).mean()
            loss.backward()
        expected = reference(x.float()).pow(2).mean()
        expected.backward()
        torch.testing.assert_close(loss.cpu(), expected, atol=1e-2, rtol=1e-2)
        for (name, p), q in zip(cuda.named_parameters(), reference.parameters(), strict=True):
            torch.testing.assert_close(p.grad.cpu().float(), q.grad, atol=3e-2, rtol=3e-2, msg=name)
        if RECORDED:
            self.assertEqual(calls.made.get("cudnn_frontend::sdpa_backward"), 1)


class TheOperator(AttentionTestCase):
    def test_outputs_as_stocks_meta(self) -> None:
        q, k, v = (t.transpose(1, 2).contiguous().transpose(1, 2).cuda() for t in qkv())
        attention = torch.ops.aten._scaled_dot_product_cudnn_attention
        out, lse, cum_q, _, max_q, max_k, seed, offset, debug = attention(
            q, k, v, None, True, 0.0, False, False
        )
        self.assertEqual(out.stride(), q.stride())
        self.assertEqual((lse.shape, lse.dtype), ((2, 4, 16, 1), torch.float32))
        scores = (q.cpu().float() @ k.cpu().float().transpose(-1, -2)) / 32**0.5
        expected = scores.logsumexp(-1, keepdim=True)
        torch.testing.assert_close(lse.cpu(), expected, atol=1e-4, rtol=1e-4)
        self.assertEqual((max_q, max_k), (16, 16))
        self.assertEqual((seed.shape, seed.dtype, offset.item()), ((), torch.long, 0))
        self.assertIsNone(cum_q)
        self.assertIsNone(debug)

    def test_refusals(self) -> None:
        q, k, v = (t.cuda() for t in qkv(torch.float32))
        with self.assertRaisesRegex(RuntimeError, "half and bfloat16"):
            torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True)
        q, k, v = (t.cuda() for t in qkv())
        with self.assertRaisesRegex(RuntimeError, "dropout probability 1.5"):
            torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 1.5)
        _, lse, *_ = torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True)
        backward = torch.ops.aten._scaled_dot_product_cudnn_attention_backward
        with self.assertRaisesRegex(RuntimeError, "philox_seed must be the forward's"):
            cpu_word = torch.zeros(())
            backward(q, q, k, v, q, lse, cpu_word, cpu_word, None, None, None, 16, 16, 0.5, False)


DROPOUT = 0.25


def probabilities(q: torch.Tensor, k: torch.Tensor, causal: bool) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d)) on the CPU in float, top-left causal if asked."""
    scores = q.float() @ k.float().transpose(-1, -2) / q.shape[-1] ** 0.5
    if causal:
        hidden = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)
        scores = scores.masked_fill(hidden, float("-inf"))
    return scores.softmax(-1)


@unittest.skipUnless(PREFERS_CUDNN, NOT_PREFERRED)
class Dropout(AttentionTestCase):
    def kept(
        self, q: torch.Tensor, k: torch.Tensor, seed: int, causal: bool = False
    ) -> torch.Tensor:
        """Which probabilities the call from `seed` keeps: with the identity as the value,
        the output is P * keep / (1 - p), each entry 0 or P / (1 - p)."""
        s_kv = k.shape[2]
        eye = torch.eye(s_kv, dtype=q.dtype).expand(q.shape[0], k.shape[1], s_kv, s_kv)
        torch.cuda.manual_seed(seed)
        out = F.scaled_dot_product_attention(
            q.cuda(), k.cuda(), eye.cuda(), dropout_p=DROPOUT, is_causal=causal
        )
        probs = probabilities(q, k, causal)
        ratio = (out.cpu().float() / probs).where(probs > 1e-3, 0.0)
        kept = ratio > 0.5
        expected = kept.float() / (1 - DROPOUT)
        torch.testing.assert_close(ratio, expected, atol=0, rtol=1e-2, msg="not 0 or 1/(1-p)")
        return kept

    def test_chosen_with_dropout(self) -> None:
        self.assertEqual(self.choice(qkv(), dropout_p=DROPOUT), CUDNN)

    def test_the_mask(self) -> None:
        q, k, _ = qkv(s_kv=32)
        kept = self.kept(q, k, seed=1)
        self.assertAlmostEqual(kept.float().mean().item(), 1 - DROPOUT, delta=0.03)
        self.assertTrue(torch.equal(kept, self.kept(q, k, seed=1)), "one seed, two masks")
        self.assertFalse(torch.equal(kept, self.kept(q, k, seed=2)), "two seeds, one mask")

    def test_agrees_with_the_cpu_under_its_mask(self) -> None:
        for dtype in (torch.float16, torch.bfloat16):
            for causal in (False, True):
                with self.subTest(dtype=dtype, causal=causal):
                    self.check_gradients(qkv(dtype, s_kv=32), causal)

    def check_gradients(self, tensors: list[torch.Tensor], causal: bool) -> None:
        keep = self.kept(tensors[0], tensors[1], seed=3, causal=causal).float() / (1 - DROPOUT)
        grad = torch.randn(*tensors[0].shape[:3], tensors[2].shape[-1])
        torch.cuda.manual_seed(3)
        leaves = [t.cuda().requires_grad_() for t in tensors]
        with LibraryCalls() as calls:
            out = F.scaled_dot_product_attention(*leaves, dropout_p=DROPOUT, is_causal=causal)
            out.backward(grad.cuda().to(out.dtype))
        cpu = [t.float().requires_grad_() for t in tensors]
        expected = (probabilities(cpu[0], cpu[1], causal) * keep) @ cpu[2]
        expected.backward(grad)
        tol = TOLERANCE[tensors[0].dtype]
        got = [out.detach().cpu().float()] + [t.grad.cpu().float() for t in leaves]
        want = [expected.detach()] + [t.grad for t in cpu]
        for name, g, w in zip(("output", "dq", "dk", "dv"), got, want, strict=True):
            torch.testing.assert_close(g, w, atol=tol, rtol=tol, msg=lambda m, n=name: f"{n}: {m}")
        if RECORDED:
            self.assertEqual(calls.made.get("cudnn_frontend::sdpa_backward"), 1)

    def test_the_generator_as_stocks(self) -> None:
        q, k, v = (t.cuda() for t in qkv(s_kv=32))
        generator = torch.cuda.default_generators[torch.cuda.current_device()]
        torch.cuda.manual_seed(5)
        before = generator.get_offset()
        attention = torch.ops.aten._scaled_dot_product_cudnn_attention
        *_, seed, offset, _ = attention(q, k, v, None, True, DROPOUT)
        self.assertEqual((seed.item(), offset.item()), (generator.initial_seed(), before))
        scores = 2 * 4 * 16 * 32
        self.assertEqual(generator.get_offset() - before, scores, "one draw per score")
        attention(q, k, v, None, True, 0.0)
        self.assertEqual(generator.get_offset() - before, scores, "no draw without dropout")

    def test_graph_replays_draw_fresh_masks(self) -> None:
        q, k, v = (t.cuda() for t in qkv())
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            F.scaled_dot_product_attention(q, k, v, dropout_p=DROPOUT)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = F.scaled_dot_product_attention(q, k, v, dropout_p=DROPOUT)
        generator = torch.cuda.default_generators[torch.cuda.current_device()]
        offset = generator.get_offset()
        graph.replay()
        first = out.clone()
        graph.replay()
        self.assertFalse(torch.equal(first, out), "two replays drew one mask")
        generator.set_offset(offset)
        eager = F.scaled_dot_product_attention(q, k, v, dropout_p=DROPOUT)
        self.assertTrue(torch.equal(first, eager), "a replay drew what an eager call draws")


if __name__ == "__main__":
    unittest.main()
