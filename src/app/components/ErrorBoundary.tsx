import { Component, type ReactNode } from 'react';

/**
 * A rendering bug in one panel must not blank the page (or the blog post around an embed):
 * the panel shows what broke and a way back.
 */
export class ErrorBoundary extends Component<
  { children: ReactNode; label: string },
  { error: Error | null }
> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="panel-error" role="alert">
        <strong>{this.props.label}</strong>: {this.state.error.message}{' '}
        <button type="button" className="text" onClick={() => this.setState({ error: null })}>
          ↻
        </button>
      </div>
    );
  }
}
