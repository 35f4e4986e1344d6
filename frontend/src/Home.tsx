import { Link } from "react-router-dom";

export default function Home() {
  return (
    <section className="home">
      <h1>Learn how large language models are served</h1>
      <p>Tokens, KV cache, batching, GPUs, parallelism, Kubernetes and vLLM internals — read, practise, remember, and simulate.</p>
      <ul className="cards">
        <li><Link to="/learn">Read the curriculum</Link></li>
        <li><Link to="/practice">Practise interview questions</Link></li>
        <li><Link to="/flashcards">Review flashcards</Link></li>
        <li><Link to="/lab">Open the Inference Lab</Link></li>
      </ul>
    </section>
  );
}
