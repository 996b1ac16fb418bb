# The tables of test_activerecord.rb, as a Rails application's db/migrate has
# them: events keyed by an sno the database makes, comments referring to them.
class CreateEvents < ActiveRecord::Migration[6.1]
  def change
    create_table :events, id: :sno, default: -> { 'sno_new()' } do |t|
      t.text :body, null: false
    end
    create_table :comments do |t|
      t.references :event, type: :sno, null: false, foreign_key: true
      t.text :text, null: false
    end
  end
end
