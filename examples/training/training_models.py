"""The three training steps of the op-layer acceptance (an MLP, a GPT-2-shaped decoder at
reduced width, a ResNet-18-shaped CNN in channels_last), written as stock CUDA torch users
write them. Each `step_*` runs one or more full training steps on `device` from a fixed
seed and returns the losses, so a run on "cuda" can be compared with one on "cpu"."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class ReplayableDropout(nn.Dropout):
    """nn.Dropout that records the masks it draws, or replays recorded ones. CUDA's
    generator draws other masks than the CPU's (in stock torch too), so a CPU run
    compared with a CUDA run replays the CUDA run's masks."""

    def __init__(self, p: float, masks: list[torch.Tensor], replay: bool) -> None:
        super().__init__(p)
        self.masks = masks
        self.replay = replay
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.replay:
            mask = self.masks[self.calls].to(x.device)
            self.calls += 1
            return x * mask * (1.0 / (1.0 - self.p))
        out = super().forward(x)
        self.masks.append((out != 0).cpu())
        return out


def mlp_step(device: str, optimizer: str, foreach: bool, fused: bool, masks: list[torch.Tensor],
             replay: bool) -> list[float]:
    """Two steps of an MLP with dropout; its masks are appended to `masks`, or, with
    `replay`, taken from it."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(16, 32), nn.SiLU(), ReplayableDropout(0.25, masks, replay), nn.Linear(32, 32),
        nn.GELU(), nn.Linear(32, 5),
    ).to(device)
    cls = torch.optim.Adam if optimizer == "adam" else torch.optim.AdamW
    kwargs = {"fused": True} if fused else {"foreach": foreach}
    opt = cls(model.parameters(), lr=1e-2, weight_decay=0.01, **kwargs)
    x = torch.randn(8, 16).to(device)
    y = torch.randint(0, 5, (8,)).to(device)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 64, width: int = 32, heads: int = 4, layers: int = 2,
                 context: int = 16) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


def gpt_step(device: str, steps: int = 2) -> list[float]:
    torch.manual_seed(0)
    model = TinyGPT().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / 10))
    )
    scaler = torch.amp.GradScaler(device)
    data = torch.randint(0, 64, (4, 17)).to(device)
    x, y = data[:, :-1], data[:, 1:]
    losses = []
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().view(-1, 64), y.reshape(-1))
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        sched.step()
        losses.append(loss.item())
    return losses


@torch.no_grad()
def gpt_generate(device: str, tokens: int = 4) -> list[int]:
    torch.manual_seed(0)
    model = TinyGPT().to(device).eval()
    idx = torch.zeros(1, 1, dtype=torch.long, device=device)
    for _ in range(tokens):
        logits = model(idx)[:, -1, :]
        values, _ = torch.topk(logits, 5)
        logits[logits < values[:, [-1]]] = -float("inf")
        nxt = torch.argmax(F.softmax(logits, dim=-1), dim=-1, keepdim=True)
        idx = torch.cat((idx, nxt), dim=1)
    return idx[0].tolist()


class BasicBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = (
            nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))
            if stride != 1 or c_in != c_out
            else nn.Identity()
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.down(x))


def resnet_step(device: str) -> list[float]:
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2), BasicBlock(8, 8, 1), BasicBlock(8, 16, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
    ).to(device, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                          weight_decay=5e-4)
    x = torch.randn(4, 3, 16, 16).to(device, memory_format=torch.channels_last)
    y = torch.randint(0, 10, (4,)).to(device)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
