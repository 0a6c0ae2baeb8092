from tests.llm_server import llama_server, scripted_server

__all__ = ["llama_server", "scripted_server"]
