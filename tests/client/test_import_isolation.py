import subprocess
import sys
import textwrap


def test_client_imports_nothing_from_engine_server_or_torch():
    script = textwrap.dedent("""
        import sys

        class Block:
            BLOCKED = ("gradserve.engine", "gradserve.server", "torch", "fastapi", "cupy")

            def find_spec(self, name, path=None, target=None):
                if any(name == b or name.startswith(b + ".") for b in self.BLOCKED):
                    raise ImportError(f"blocked import of {name}")
                return None

        sys.meta_path.insert(0, Block())
        import gradserve.client
        from gradserve.client import Client, AsyncClient, RemoteTensor, ProgramError
        import gradserve.client.cli_run
        bad = sorted(m for m in sys.modules if m.startswith(Block.BLOCKED))
        assert not bad, bad
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
