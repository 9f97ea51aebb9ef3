"""What choosing the language per request costs: CPU time per new-mask drill page (token unit,
20 %), the ASGI app called directly, with the language middleware (a Chinese browser, an English
browser, the remembered cookie, `?lang=`) beside the same app without it (always Chinese).

    python bench/language_cpu.py [--requests 2000] [--rounds 3]
"""

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.main import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.web.language import LanguageMiddleware  # noqa: E402
from bench.drill_cpu import call, cpu_ms  # noqa: E402
from bench.web_app import page_url  # noqa: E402

CHINESE = [(b"accept-language", b"zh-CN,zh;q=0.9,en;q=0.8")]
ENGLISH = [(b"accept-language", b"en-US,en;q=0.9")]
COOKIE = [(b"accept-language", b"zh-CN,zh;q=0.9"), (b"cookie", b"lang=en")]


def app_without_language():
    app = create_app(Settings(data_dir=Path(tempfile.mkdtemp()), execution=False))
    app.user_middleware = [m for m in app.user_middleware if m.cls is not LanguageMiddleware]
    return app  # the stack is built on the first call, so the middleware is gone


async def main(n: int, rounds: int) -> None:
    plain = app_without_language()
    app = create_app(Settings(data_dir=Path(tempfile.mkdtemp()), execution=False))
    cases = {
        "without the middleware (Chinese)": (plain, CHINESE, ""),
        "Accept-Language: zh-CN": (app, CHINESE, ""),
        "Accept-Language: en-US": (app, ENGLISH, ""),
        "cookie lang=en": (app, COOKIE, ""),
        "?lang=en (sets the cookie)": (app, CHINESE, "&lang=en"),
    }
    results = {name: [] for name in cases}
    async with plain.router.lifespan_context(plain), app.router.lifespan_context(app):
        for _ in range(rounds):  # interleaved, so drift on a shared machine hits every case
            for name, (target, headers, extra) in cases.items():
                ms = await cpu_ms(
                    lambda i: call("GET", page_url("token", i) + extra, target=target, headers=headers), n
                )
                results[name].append(ms)
    print("| request | ms CPU per drill page (rounds) |\n|---|---|")
    for name, values in results.items():
        print(f"| {name} | {min(values):.3f} ({', '.join(f'{v:.3f}' for v in values)}) |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.requests, args.rounds))
