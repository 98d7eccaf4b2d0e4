# realcode: dredwardhyde/crnn-ctc-loss-pytorch @ ab540147419aa6f29faf78450bc527b87d2e2b68
# realcode: https://github.com/dredwardhyde/crnn-ctc-loss-pytorch/blob/ab540147419aa6f29faf78450bc527b87d2e2b68/ctc_loss_example.py
# realcode: kept as written except for these adaptations:
#   - `gpu = torch.device('cuda')` -> `gpu = torch.device('cpu')  # realcode: the CPU` and `targets.cuda()` -> `targets` (commented in place): the CPU
#   - a load marker after targets and log_probs are drawn (PyTorch's draws are copied in), the script's top level split there
# realcode-output: targets log_probs res expected
import torch
import torch.backends.cudnn

gpu = torch.device('cpu')  # realcode: the CPU


def ctcloss_reference(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean'):
    input_lengths = torch.as_tensor(input_lengths, dtype=torch.long)
    target_lengths = torch.as_tensor(target_lengths, dtype=torch.long)
    dt = log_probs.dtype
    log_probs = log_probs.double()  # we need the accuracy as we are not in logspace
    targets = targets.long()
    cum_target_lengths = target_lengths.cumsum(0)
    losses = []
    for i in range(log_probs.size(1)):
        input_length = input_lengths[i].item()
        target_length = target_lengths[i].item()
        cum_target_length = cum_target_lengths[i].item()
        # ==========================================================================================================
        targets_prime = targets.new_full((2 * target_length + 1,), blank)
        if targets.dim() == 2:
            targets_prime[1::2] = targets[i, :target_length]
        else:
            targets_prime[1::2] = targets[cum_target_length - target_length:cum_target_length]
        # ==========================================================================================================
        probs = log_probs[:input_length, i].exp()
        # ==========================================================================================================
        alpha = log_probs.new_zeros((target_length * 2 + 1,))
        alpha[0] = probs[0, blank]
        alpha[1] = probs[0, targets_prime[1]]
        mask_third = (targets_prime[:-2] != targets_prime[2:])
        for t in range(1, input_length):
            alpha_next = alpha.clone()
            alpha_next[1:] += alpha[:-1]
            alpha_next[2:] += torch.where(mask_third, alpha[:-2], alpha.new_zeros(1))
            alpha = probs[t, targets_prime] * alpha_next
        # ==========================================================================================================
        losses.append(-alpha[-2:].sum().log()[None])
    output = torch.cat(losses, 0)
    if reduction == 'mean':
        return (output / target_lengths.to(dtype=output.dtype, device=output.device)).mean()
    elif reduction == 'sum':
        return output.sum()
    output = output.to(dt)
    return output


ctc_loss = torch.nn.CTCLoss()
target_lengths = [30, 25, 20]
input_lengths = [50, 50, 50]
targets = torch.randint(1, 15, (sum(target_lengths),), dtype=torch.int)
log_probs = torch.randn(50, 3, 15, dtype=torch.float, device=gpu).log_softmax(2)
# %% realcode-load: targets log_probs
res = ctc_loss(log_probs, targets, input_lengths, target_lengths)
expected = ctcloss_reference(log_probs, targets, input_lengths, target_lengths).float()  # realcode: targets.cuda() -> targets (the CPU)
print("Built-in CTC loss\n", res)
print("Reference CTC loss\n", expected)
print(torch.all(res.eq(expected)))
