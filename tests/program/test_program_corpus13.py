"""What corpus13's public scripts needed from programs."""


def test_clip_grad_norm_deprecated_spelling(run_ok):
    # kaushalshetty/Structured-Self-Attention's train()
    out, _ = run_ok(
        "w = torch.tensor([3.0, 4.0], requires_grad=True)\n"
        "(w * w / 2).sum().backward()\n"
        "total = torch.nn.utils.clip_grad_norm([w], 1.0)\n"
        "print(round(total.item(), 4), [round(g, 4) for g in w.grad.tolist()])\n")
    assert out.stdout == ("<program>:3: FutureWarning: `torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                          "`torch.nn.utils.clip_grad_norm_`.\n5.0 [0.6, 0.8]\n")
